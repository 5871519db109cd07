package learning

// Reactions a tester can give a proactive alert.
const (
	ReactionUp   = "up"
	ReactionAck  = "ack"
	ReactionDown = "down"
)
