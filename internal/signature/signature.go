// Package signature checks a signature drawn on the booking form: a PNG
// sent as a data URL by the page's drawing pad. It tells a drawn mark
// from an empty or near-empty image and from anything that is not a
// small PNG, and returns the PNG to keep with the request.
//
// It imports only the standard library.
package signature

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
)

// Limits of a signature image.
const (
	MaxBytes  = 200 << 10 // the PNG, decoded from base64
	MaxWidth  = 2000
	MaxHeight = 1000
	// A real signature covers at least this many inked pixels and spans
	// at least this much of the pad; a dot or a stray tap does not.
	MinInk    = 150
	MinWidth  = 40
	MinHeight = 10
)

// Problem is a refusal of a signature, worded to show on the form.
type Problem string

func (p Problem) Error() string { return string(p) }

// The refusals.
const (
	ErrMissing  Problem = "Sign in the box to agree to the guest agreement."
	ErrNotImage Problem = "The signature could not be read. Clear the box and sign again."
	ErrEmpty    Problem = "The signature box looks empty. Sign with your finger or mouse, then send the form again."
)

const prefix = "data:image/png;base64,"

// Check reads a data URL from the drawing pad and returns its PNG bytes,
// or ErrMissing, ErrNotImage or ErrEmpty.
func Check(dataURL string) ([]byte, error) {
	dataURL = strings.TrimSpace(dataURL)
	if dataURL == "" {
		return nil, ErrMissing
	}
	if !strings.HasPrefix(dataURL, prefix) || len(dataURL)-len(prefix) > base64.StdEncoding.EncodedLen(MaxBytes) {
		return nil, ErrNotImage
	}
	raw, err := base64.StdEncoding.DecodeString(dataURL[len(prefix):])
	if err != nil {
		return nil, ErrNotImage
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxWidth || cfg.Height > MaxHeight {
		return nil, ErrNotImage
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, ErrNotImage
	}
	if !drawn(img) {
		return nil, ErrEmpty
	}
	return raw, nil
}

// drawn reports whether img holds a mark: enough inked pixels (visible
// and darker than light grey) spread over enough of the image.
func drawn(img image.Image) bool {
	b := img.Bounds()
	ink := 0
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a < 0x4000 || (r+g+bl)/3 > 0xc000*a/0xffff {
				continue // transparent, or pale on any background
			}
			ink++
			minX, minY = min(minX, x), min(minY, y)
			maxX, maxY = max(maxX, x), max(maxY, y)
		}
	}
	return ink >= MinInk && maxX-minX+1 >= MinWidth && maxY-minY+1 >= MinHeight
}
