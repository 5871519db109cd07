package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/honehq/hone"
)

// Recorder records the turns applications report and the chat playground
// makes. It is the one way turns enter hone, so that every face treats them
// alike: cleaned, validated, measured, then stored.
type Recorder struct {
	store    Store
	measurer Measurer
	counter  Counter
	source   string
}

// Counter counts the turns Recorders record, for monitoring.
type Counter interface {
	// TurnsRecorded is told that n turns from source (one of Sources, or
	// "" when unknown) were recorded; a replayed turn is not recorded
	// again, and not counted.
	TurnsRecorded(source string, n int)
}

// Counting returns a Recorder like r that tells c how many turns it
// records, by their source.
func (r *Recorder) Counting(c Counter) *Recorder {
	n := *r
	n.counter = c
	return &n
}

// count tells the counter of the turns results recorded, by source.
func (r *Recorder) count(results []TurnResult) {
	if r.counter == nil {
		return
	}
	var counts map[string]int
	for _, res := range results {
		if res.Turn != nil && res.Err == nil && !res.Replayed {
			if counts == nil {
				counts = map[string]int{}
			}
			counts[res.Turn.Source]++
		}
	}
	for source, n := range counts {
		r.counter.TurnsRecorded(source, n)
	}
}

// NewRecorder returns a Recorder writing to store; measurer, when not nil,
// scores every turn.
func NewRecorder(store Store, measurer Measurer) *Recorder {
	return &Recorder{store: store, measurer: measurer}
}

// From returns a Recorder like r for turns that arrive one way: a turn that
// does not say its source is recorded with source (one of Sources).
func (r *Recorder) From(source string) *Recorder {
	c := *r
	c.source = source
	return &c
}

// Store returns the store turns are written to.
func (r *Recorder) Store() Store { return r.store }

// Record records one turn. key is the client's idempotency key ("" for
// none): a turn recorded again with the same key, or the same Input.ID, and
// the same content returns the first recording with replayed set; with other
// content it is an ECONFLICT error.
func (r *Recorder) Record(ctx context.Context, in TurnInput, key string) (t *Turn, replayed bool, err error) {
	res, err := r.RecordBatch(ctx, []TurnInput{in}, key)
	if err != nil {
		return nil, false, err
	}
	return res[0].Turn, res[0].Replayed, res[0].Err
}

// RecordBatch validates every input and records the valid ones in one
// transaction. The results are in the order of ins; an invalid input has
// its error there and is not recorded. key, when not "", is the batch's
// idempotency key: input i is recorded under key:i. The error is for a
// failure of the whole write, when nothing was recorded.
func (r *Recorder) RecordBatch(ctx context.Context, ins []TurnInput, key string) ([]TurnResult, error) {
	out := make([]TurnResult, len(ins))
	recs := make([]TurnRecord, 0, len(ins))
	at := make([]int, 0, len(ins))
	for i := range ins {
		rec, err := r.prepare(ins[i], batchKey(key, i, len(ins)))
		if err != nil {
			out[i].Err = err
			continue
		}
		recs = append(recs, rec)
		at = append(at, i)
	}
	if len(recs) == 0 {
		return out, nil
	}
	res, err := r.store.RecordTurns(ctx, recs)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i] = res[j]
	}
	r.count(out)
	return out, nil
}

// batchKey is the idempotency key of input i of n under the request's key.
func batchKey(key string, i, n int) string {
	if key == "" || n == 1 {
		return key
	}
	return key + ":" + strconv.Itoa(i)
}

// MaxKeyLength is the longest idempotency key accepted, in characters.
const MaxKeyLength = 255

// prepare cleans, validates, completes (see TurnInput.Derive) and measures in.
func (r *Recorder) prepare(in TurnInput, key string) (TurnRecord, error) {
	in.Clean()
	if err := in.Validate(); err != nil {
		return TurnRecord{}, err
	}
	rec := TurnRecord{Key: key}
	if key != "" || in.ID != "" {
		rec.Fingerprint = fingerprint(&in)
	}
	in.Derive()
	if in.Source == "" {
		in.Source = r.source
	}
	rec.Input = in
	if len(in.Messages) > 0 {
		b, err := json.Marshal(in.Messages)
		if err != nil {
			return TurnRecord{}, err
		}
		rec.Messages = b
	}
	if r.measurer != nil {
		rec.Measured, rec.First = r.measurer.Measure(&in)
	}
	return rec, nil
}

// ValidateKey reports whether an idempotency key can be used.
func ValidateKey(key string) error {
	if hone.Chars(key) > MaxKeyLength {
		return hone.FieldError("Idempotency-Key", "the Idempotency-Key header is longer than %d characters", MaxKeyLength)
	}
	if key != hone.CleanText(key) {
		return hone.FieldError("Idempotency-Key", "the Idempotency-Key header is not valid UTF-8 text")
	}
	return nil
}

// fingerprint hashes the content of a cleaned input as the client sent it,
// before hone derives or defaults any field.
func fingerprint(in *TurnInput) string {
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
