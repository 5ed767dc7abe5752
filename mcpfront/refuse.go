package mcpfront

import (
	"errors"
	"fmt"
	"net/http"

	"frontdesk/internal/jsonlimit"
)

// RefuseBody answers a body jsonlimit refused with a JSON-RPC error.
func RefuseBody(w http.ResponseWriter, err error) {
	msg := "Invalid Request: the body nests arrays and objects too deep."
	status := http.StatusBadRequest
	if errors.Is(err, jsonlimit.ErrTooLarge) {
		msg, status = "Request body is too large.", http.StatusRequestEntityTooLarge
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":%q}}`, msg)
}
