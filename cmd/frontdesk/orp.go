package main

import (
	"context"
	"net/http"
)

// mountORP adds the ORP host's routes when the config enables it.
func (m *Main) mountORP(mux *http.ServeMux) {}

// startORP starts the ORP host's background work: batched click writes and
// scheduled outcomes. It returns a function that stops it and flushes.
func (m *Main) startORP(ctx context.Context) (stop func()) { return func() {} }
