// Package chat routes chat messages, whatever surface they come from (the
// API's POST /messages, the terminal chat, the web chat, a chat-platform
// adapter), to the capabilities that answer them. Each capability registers
// its commands (tuning: !improve, !print …; scoring: !score) and, when it
// needs to see messages before the application does, an Interceptor (a
// conversation awaiting a reply, such as a correction after 👎). A message
// that is neither is passed on to the application.
package chat
