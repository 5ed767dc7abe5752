# frontdesk's everyday targets. `make` builds ./frontdesk with its version
# and revision linked in (`frontdesk version` prints them); `make install`
# puts the same binary in $(go env GOPATH)/bin; `make test` runs every
# test and ends with one line saying how many were skipped for which
# missing service; `make release` builds the static release binaries.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X main.version=$(VERSION) -X main.revision=$(REVISION)
SHELL := bash
.SHELLFLAGS := -eo pipefail -c
# The release platforms: GOOS/GOARCH pairs.
PLATFORMS := linux/amd64 linux/arm64 darwin/arm64

.PHONY: build install test release clean
build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o frontdesk ./cmd/frontdesk

install:
	go install -trimpath -ldflags "$(LDFLAGS)" ./cmd/frontdesk

# go test runs each package as its own binary; testsummary reads their
# events and prints one line of totals and skips at the end.
test:
	go test -json ./... | go run ./internal/testsummary

# Static binaries (no cgo: SQLite is the pure-Go modernc.org/sqlite) in
# dist/, named frontdesk-VERSION-OS-ARCH, with their SHA-256 sums in
# dist/SHA256SUMS (check with `cd dist && sha256sum -c SHA256SUMS`).
release:
	rm -rf dist && mkdir -p dist
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w $(LDFLAGS)" \
			-o dist/frontdesk-$(VERSION)-$$os-$$arch ./cmd/frontdesk || exit 1; \
	done
	cd dist && sha256sum frontdesk-* > SHA256SUMS && cat SHA256SUMS

clean:
	rm -rf frontdesk dist
