package suggest

// Sink takes finalised records away from the caller. Send must not wait
// on the disk or the network; Close delivers what was sent and releases
// the sink.
type Sink interface {
	Send(r *Record)
	Close() error
}
