// Package server holds what hone's HTTP faces (the JSON API and the web UI)
// share: the route table, handlers that return their errors, the one
// function that turns an error into a status with its headers and a JSON or
// HTML body, the 404 and 405 answers, request body decoding with its limits,
// and the identity every request carries.
package server
