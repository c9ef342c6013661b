package referee

import (
	"context"
	"encoding/hex"
	"encoding/json"
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

type vectorStep struct {
	Action    json.RawMessage `json:"action"`
	Verdict   string          `json:"verdict"`
	StateHash string          `json:"stateHash"`
}

type vector struct {
	Config           json.RawMessage   `json:"config"`
	Seed             string            `json:"seed"`
	SeatEntropy      []string          `json:"seatEntropy"`
	Actions          []json.RawMessage `json:"actions"`
	Verdicts         []string          `json:"verdicts"`
	ExpectedVerdicts []string          `json:"expectedVerdicts"`
	Steps            []vectorStep      `json:"steps"`
	InitialHash      string            `json:"initialHash"`
	FinalHash        string            `json:"finalHash"`
}

// RunVector replays one vector file through the server and returns every
// difference from what the file expects (none: the vector holds).
func RunVector(ctx context.Context, c *Client, file string) (failures []string, actions int, err error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, 0, err
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	req := &refereev1.ReplayRequest{Config: &refereev1.GameConfig{}}
	if err := protojson.Unmarshal(v.Config, req.Config); err != nil {
		return nil, 0, fmt.Errorf("%s: config: %w", file, err)
	}
	if req.Seed, err = hex.DecodeString(v.Seed); err != nil {
		return nil, 0, fmt.Errorf("%s: seed: %w", file, err)
	}
	for _, e := range v.SeatEntropy {
		b, err := hex.DecodeString(e)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: seatEntropy: %w", file, err)
		}
		req.SeatEntropy = append(req.SeatEntropy, b)
	}
	rawActions := v.Actions
	if rawActions == nil {
		for _, s := range v.Steps {
			rawActions = append(rawActions, s.Action)
		}
	}
	verdicts := make([]string, len(rawActions))
	hashes := make([]string, len(rawActions))
	list := v.Verdicts
	if list == nil {
		list = v.ExpectedVerdicts
	}
	for i := range verdicts {
		if i < len(list) {
			verdicts[i] = list[i]
		}
		if i < len(v.Steps) {
			if v.Steps[i].Verdict != "" {
				verdicts[i] = v.Steps[i].Verdict
			}
			hashes[i] = strings.ToLower(v.Steps[i].StateHash)
		}
	}
	for i, a := range rawActions {
		action := &refereev1.Action{}
		if err := protojson.Unmarshal(a, action); err != nil {
			return nil, 0, fmt.Errorf("%s: action %d: %w", file, i, err)
		}
		req.Actions = append(req.Actions, action)
	}
	reply, err := c.Replay(ctx, req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	if len(reply.GetSteps()) != len(req.Actions) {
		failures = append(failures, fmt.Sprintf("%d steps for %d actions", len(reply.GetSteps()), len(req.Actions)))
	}
	norm := func(s string) string { return strings.TrimPrefix(s, "VERDICT_") }
	for i, step := range reply.GetSteps() {
		if i >= len(verdicts) {
			break
		}
		got := norm(step.GetVerdict().String())
		if verdicts[i] != "" && got != norm(verdicts[i]) {
			failures = append(failures, fmt.Sprintf("action %d: verdict %s, expected %s", i, got, norm(verdicts[i])))
		}
		if hashes[i] != "" && hex.EncodeToString(step.GetStateHash()) != hashes[i] {
			failures = append(failures, fmt.Sprintf("action %d: state hash %x, expected %s", i, step.GetStateHash(), hashes[i]))
		}
	}
	if v.InitialHash != "" && hex.EncodeToString(reply.GetInitialHash()) != strings.ToLower(v.InitialHash) {
		failures = append(failures, fmt.Sprintf("initial hash %x, expected %s", reply.GetInitialHash(), v.InitialHash))
	}
	switch {
	case v.FinalHash == "":
		failures = append(failures, "the vector has no finalHash")
	case hex.EncodeToString(reply.GetFinalHash()) != strings.ToLower(v.FinalHash):
		failures = append(failures, fmt.Sprintf("final hash %x, expected %s", reply.GetFinalHash(), v.FinalHash))
	}
	return failures, len(req.Actions), nil
}
