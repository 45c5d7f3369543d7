package decode

import (
	"fmt"
	"net/http"
)

// InputError is a batch the client must fix: it carries the HTTP status to
// answer and a message that says what was wrong. Nothing of a batch that
// produced an InputError is stored.
type InputError struct {
	Status  int
	Message string
}

func (e *InputError) Error() string { return e.Message }

// BadRequest is a 400 InputError with a formatted message.
func BadRequest(format string, args ...any) *InputError {
	return &InputError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}
