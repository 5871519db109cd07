package teams

import (
	"container/list"
	"sync"
)

// recent is a bounded map that forgets the least recently used entry
// when full: the conversation references and the turns of sent answers.
type recent[V any] struct {
	mu    sync.Mutex
	limit int
	order *list.List
	items map[string]*list.Element
}

type recentEntry[V any] struct {
	key   string
	value V
}

func newRecent[V any](limit int) *recent[V] {
	return &recent[V]{limit: max(limit, 1), order: list.New(), items: map[string]*list.Element{}}
}

func (r *recent[V]) put(key string, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.items[key]; ok {
		e.Value.(*recentEntry[V]).value = v
		r.order.MoveToFront(e)
		return
	}
	r.items[key] = r.order.PushFront(&recentEntry[V]{key: key, value: v})
	for r.order.Len() > r.limit {
		last := r.order.Back()
		r.order.Remove(last)
		delete(r.items, last.Value.(*recentEntry[V]).key)
	}
}

func (r *recent[V]) get(key string) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	r.order.MoveToFront(e)
	return e.Value.(*recentEntry[V]).value, true
}

func (r *recent[V]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.order.Len()
}
