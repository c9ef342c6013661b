package referee

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	refereev1 "referee/clients/go/gen/referee/v1"
)

// VectorFiles lists the golden replay vectors of dir (tests/vectors/*.json);
// ok is false when dir does not exist.
func VectorFiles(dir string) (files []string, ok bool, err error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil, false, nil
	}
	files, err = filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	return files, true, err
}

// LoadGameLog reads a GameLog in its protobuf JSON form (docs/trust.md).
func LoadGameLog(file string) (*refereev1.GameLog, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	log := &refereev1.GameLog{}
	if err := protojson.Unmarshal(raw, log); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return log, nil
}

// RunVector replays one vector file (a GameLog) through the server and returns
// every difference from what the file records: verdicts, violation codes,
// state hashes, the initial and the final hash (none: the vector holds).
func RunVector(ctx context.Context, c *Client, file string) (failures []string, actions int, err error) {
	log, err := LoadGameLog(file)
	if err != nil {
		return nil, 0, err
	}
	req := &refereev1.ReplayRequest{Config: log.GetConfig(), Seed: log.GetSeed(), SeatEntropy: log.GetSeatEntropy(), RulesVersion: log.GetRulesVersion()}
	for _, e := range log.GetEntries() {
		req.Actions = append(req.Actions, e.GetAction())
	}
	if sum := sha256.Sum256(log.GetSeed()); len(log.GetSeedCommitment()) > 0 && !bytes.Equal(sum[:], log.GetSeedCommitment()) {
		failures = append(failures, "the seed does not match the seed commitment")
	}
	reply, err := c.Replay(ctx, req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	if !bytes.Equal(reply.GetInitialHash(), log.GetInitialHash()) {
		failures = append(failures, fmt.Sprintf("initial hash %x, expected %x", reply.GetInitialHash(), log.GetInitialHash()))
	}
	entries := log.GetEntries()
	if len(reply.GetSteps()) != len(entries) {
		failures = append(failures, fmt.Sprintf("%d steps for %d actions", len(reply.GetSteps()), len(entries)))
	}
	for i, step := range reply.GetSteps() {
		if i >= len(entries) {
			break
		}
		want := entries[i]
		if step.GetVerdict() != want.GetVerdict() {
			failures = append(failures, fmt.Sprintf("action %d: verdict %s, expected %s", i,
				strings.TrimPrefix(step.GetVerdict().String(), "VERDICT_"),
				strings.TrimPrefix(want.GetVerdict().String(), "VERDICT_")))
		}
		var codes []string
		for _, v := range step.GetViolations() {
			codes = append(codes, v.GetCode())
		}
		if strings.Join(codes, ",") != strings.Join(want.GetViolations(), ",") {
			failures = append(failures, fmt.Sprintf("action %d: violations %v, expected %v", i, codes, want.GetViolations()))
		}
		if !bytes.Equal(step.GetStateHash(), want.GetStateHash()) {
			failures = append(failures, fmt.Sprintf("action %d: state hash %x, expected %x", i, step.GetStateHash(), want.GetStateHash()))
		}
	}
	if !bytes.Equal(reply.GetFinalHash(), log.GetFinalHash()) {
		failures = append(failures, fmt.Sprintf("final hash %x, expected %x", reply.GetFinalHash(), log.GetFinalHash()))
	}
	if fs := reply.GetFinalState(); fs != nil && fs.GetRulesVersion() != log.GetRulesVersion() {
		failures = append(failures, fmt.Sprintf("rules version %s, expected %s", fs.GetRulesVersion(), log.GetRulesVersion()))
	}
	return failures, len(req.Actions), nil
}
