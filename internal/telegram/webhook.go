package telegram

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// maxUpdateBytes bounds an update posted to the webhook.
const maxUpdateBytes = 1 << 20

// Webhook is the handler Telegram posts updates to in webhook mode: it
// checks the secret token given with setWebhook, in constant time, and
// answers once the update is recorded (its answer is sent after), so that
// Telegram posts it again when hone fails first.
func (a *Adapter) Webhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "Telegram posts updates here", http.StatusMethodNotAllowed)
			return
		}
		got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
		if subtle.ConstantTimeCompare([]byte(got), []byte(a.secret)) != 1 {
			http.Error(w, "wrong or missing X-Telegram-Bot-Api-Secret-Token", http.StatusUnauthorized)
			return
		}
		select {
		case <-a.ready:
		default:
			http.Error(w, "the bot is still connecting", http.StatusServiceUnavailable)
			return
		}
		var u tgbotapi.Update
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxUpdateBytes)).Decode(&u); err != nil {
			http.Error(w, "the body is not a Telegram update", http.StatusBadRequest)
			return
		}
		a.hooked.Lock()
		defer a.hooked.Unlock()
		a.process(r.Context(), u)
		w.WriteHeader(http.StatusOK)
	})
}

// Secret is the webhook's secret token, for tests.
func (a *Adapter) Secret() string { return a.secret }
