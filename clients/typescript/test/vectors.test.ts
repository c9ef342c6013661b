import assert from "node:assert/strict";
import { test } from "node:test";

import { RefereeClient, runVector, vectorFiles } from "../src/index.js";
import { address, vectorsDir } from "./support.js";

test("golden replay vectors give the expected verdicts and final hashes", async (t) => {
  const dir = vectorsDir();
  const files = vectorFiles(dir);
  if (files === undefined) {
    // Said out loud, never skipped silently: the vectors come with issue 5.
    t.diagnostic(`no golden vectors: ${dir} does not exist`);
    console.log(`golden vectors: ${dir} does not exist; nothing to replay`);
    return;
  }
  assert.ok(files.length > 0, `${dir} holds no .json vector`);
  const client = new RefereeClient(address());
  for (const file of files) {
    await t.test(file, async () => {
      const result = await runVector(client, file);
      assert.deepEqual(result.failures, [], result.failures.join("\n"));
      console.log(`vector ok: ${file} (${result.actions} actions)`);
    });
  }
});
