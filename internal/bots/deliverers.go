package bots

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Deliverers are the platforms' Deliverers: an alert recorded for a
// conversation whose id starts with a platform's prefix ("telegram:") is
// delivered through that platform's.
type Deliverers struct {
	log *slog.Logger
	mu  sync.RWMutex
	by  map[string]Deliverer
	wg  sync.WaitGroup
}

// NewDeliverers returns an empty registry that logs failed deliveries to log.
func NewDeliverers(log *slog.Logger) *Deliverers {
	if log == nil {
		log = slog.Default()
	}
	return &Deliverers{log: log, by: map[string]Deliverer{}}
}

// Add registers d for its platform, in place of an earlier one.
func (ds *Deliverers) Add(d Deliverer) {
	ds.mu.Lock()
	ds.by[d.Platform()] = d
	ds.mu.Unlock()
}

// For returns the deliverer of the conversation's platform and the
// conversation's id on it; nil when no platform of hone holds it.
func (ds *Deliverers) For(conversationID string) (Deliverer, string) {
	platform, id, ok := strings.Cut(conversationID, ":")
	if !ok || id == "" {
		return nil, ""
	}
	ds.mu.RLock()
	defer ds.mu.RUnlock()
	return ds.by[platform], id
}

// DeliveryTimeout bounds one alert's delivery, retries included.
const DeliveryTimeout = 2 * time.Minute

// Deliver shows an alert in its conversation when that lives on a platform
// hone runs on, in the background: the platform may be slow or rate-limited,
// and the alert is recorded already. It reports whether a platform takes it.
func (ds *Deliverers) Deliver(ctx context.Context, conversationID, alertID, text string) bool {
	d, id := ds.For(conversationID)
	if d == nil {
		return false
	}
	ds.wg.Add(1)
	go func() {
		defer ds.wg.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DeliveryTimeout)
		defer cancel()
		if err := d.Deliver(ctx, Delivery{ConversationID: id, AlertID: alertID, Text: text}); err != nil {
			ds.log.Warn("an alert could not be delivered", "platform", d.Platform(), "conversation_id", conversationID,
				"alert_id", alertID, "err", err)
		}
	}()
	return true
}

// Wait waits for the deliveries under way.
func (ds *Deliverers) Wait() { ds.wg.Wait() }
