// Package signaturetest gives tests a signature as the booking form's
// drawing pad posts it, one that internal/signature accepts, so the tests
// of every door that takes the form draw the same one.
//
// It is test support: it imports only the standard library, and only
// tests import it.
package signaturetest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// Drawn is a signature as the form's drawing pad sends it: a data URL
// of a 400×150 PNG holding a wavy pen stroke.
func Drawn(t testing.TB) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 400, 150))
	for x := 40; x < 320; x++ {
		for dy := range 3 {
			img.Set(x, 60+dy+(x%24)/3, color.Black)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}
