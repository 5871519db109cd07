package llmtest

import (
	"context"
	"slices"
	"sync"

	"github.com/honehq/hone/internal/llm"
)

// MemoryRecorder is an in-memory llm.CallStore; its zero value is ready to
// use. It is safe for concurrent use.
type MemoryRecorder struct {
	mu    sync.Mutex
	calls []llm.Call
	err   error
}

// SetErr makes RecordCall fail with err, keeping nothing, until it is reset
// with nil.
func (m *MemoryRecorder) SetErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

var _ llm.CallStore = (*MemoryRecorder)(nil)

// RecordCall keeps a copy of c.
func (m *MemoryRecorder) RecordCall(_ context.Context, c *llm.Call) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	cp := *c
	cp.Request.Messages = slices.Clone(c.Request.Messages)
	if c.Response != nil {
		r := *c.Response
		cp.Response = &r
	}
	m.calls = append(m.calls, cp)
	return nil
}

// ListCalls returns the Calls matching f, newest first.
func (m *MemoryRecorder) ListCalls(_ context.Context, f llm.CallFilter) ([]llm.Call, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []llm.Call
	for i := len(m.calls) - 1; i >= 0; i-- {
		c := m.calls[i]
		if (f.Purpose != "" && c.Purpose != f.Purpose) || (f.CauseID != "" && c.CauseID != f.CauseID) {
			continue
		}
		out = append(out, c)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

// Calls returns every recorded Call, oldest first.
func (m *MemoryRecorder) Calls() []llm.Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}
