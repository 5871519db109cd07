package teams

import (
	"encoding/json"
)

// activity is the part of a Bot Framework activity the adapter reads and
// writes.
type activity struct {
	Type         string          `json:"type"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	ChannelID    string          `json:"channelId,omitempty"`
	ServiceURL   string          `json:"serviceUrl,omitempty"`
	From         *account        `json:"from,omitempty"`
	Recipient    *account        `json:"recipient,omitempty"`
	Conversation *conversation   `json:"conversation,omitempty"`
	ReplyToID    string          `json:"replyToId,omitempty"`
	Text         string          `json:"text,omitempty"`
	TextFormat   string          `json:"textFormat,omitempty"`
	Entities     []entity        `json:"entities,omitempty"`
	Attachments  []attachment    `json:"attachments,omitempty"`
	ChannelData  json.RawMessage `json:"channelData,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

type account struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	AADObjectID string `json:"aadObjectId,omitempty"`
}

type conversation struct {
	ID               string `json:"id"`
	ConversationType string `json:"conversationType,omitempty"`
	TenantID         string `json:"tenantId,omitempty"`
	IsGroup          bool   `json:"isGroup,omitempty"`
}

// entity is an activity entity: a mention (Mentioned, Text) or the
// AI-generated label (the schema.org Message fields).
type entity struct {
	Type           string   `json:"type"`
	Mentioned      *account `json:"mentioned,omitempty"`
	Text           string   `json:"text,omitempty"`
	Context        string   `json:"@context,omitempty"`
	SchemaType     string   `json:"@type,omitempty"`
	SchemaID       *string  `json:"@id,omitempty"`
	AdditionalType []string `json:"additionalType,omitempty"`
}

type attachment struct {
	ContentType string `json:"contentType"`
	Content     any    `json:"content"`
}

// channelData is the Teams channel data the adapter reads (the tenant)
// and writes (the feedback loop).
type channelData struct {
	Tenant       *tenant       `json:"tenant,omitempty"`
	FeedbackLoop *feedbackLoop `json:"feedbackLoop,omitempty"`
}

type tenant struct {
	ID string `json:"id"`
}

// feedbackLoop turns on Teams' 👍/👎 under a message; type "default" is
// Teams' own feedback form.
type feedbackLoop struct {
	Type string `json:"type"`
}

// aiGenerated is the entity that shows Teams' "AI generated" label.
func aiGenerated() entity {
	empty := ""
	return entity{
		Type:           "https://schema.org/Message",
		Context:        "https://schema.org",
		SchemaType:     "Message",
		SchemaID:       &empty,
		AdditionalType: []string{"AIGeneratedContent"},
	}
}

// feedbackValue is the value of the message/submitAction invoke of a
// feedback button.
type feedbackValue struct {
	ActionName  string `json:"actionName"`
	ActionValue struct {
		Reaction string          `json:"reaction"`
		Feedback json.RawMessage `json:"feedback"`
	} `json:"actionValue"`
}

// feedbackText reads the text of the feedback form: Teams sends a JSON
// string holding {"feedbackText": "..."}; an object or plain text is
// taken too.
func feedbackText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var form struct {
		FeedbackText string `json:"feedbackText"`
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if json.Unmarshal([]byte(s), &form) == nil {
			return form.FeedbackText
		}
		return s
	}
	if json.Unmarshal(raw, &form) == nil {
		return form.FeedbackText
	}
	return ""
}

// alertValue is the data of an alert card's button, as a message's value
// (Action.Submit) or inside an adaptiveCard/action invoke.
type alertValue struct {
	AlertID  string `json:"alert_id"`
	Reaction string `json:"reaction"`
}

// cardActionValue is the value of an adaptiveCard/action invoke.
type cardActionValue struct {
	Action struct {
		Type string     `json:"type"`
		Verb string     `json:"verb"`
		Data alertValue `json:"data"`
	} `json:"action"`
}

// resourceResponse is the Bot Connector's answer to a sent activity.
type resourceResponse struct {
	ID string `json:"id"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
