# Builds frontdesk with its version and revision linked in, as releases
# are built; `frontdesk version` prints them.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X main.version=$(VERSION) -X main.revision=$(REVISION)

.PHONY: build test
build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o frontdesk ./cmd/frontdesk

test:
	go test ./...
