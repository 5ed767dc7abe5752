package signature

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// pad draws on a transparent 400×150 pad, as the form's canvas sends it.
func pad(t *testing.T, draw func(img *image.NRGBA)) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 400, 150))
	draw(img)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return prefix + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func line(img *image.NRGBA, x0, x1, y, thick int, c color.Color) {
	for x := x0; x < x1; x++ {
		for dy := 0; dy < thick; dy++ {
			img.Set(x, y+dy+(x%20)/2, c)
		}
	}
}

func TestCheck(t *testing.T) {
	black := color.NRGBA{0, 0, 0, 255}
	signed := pad(t, func(img *image.NRGBA) { line(img, 40, 300, 60, 3, black) })
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"drawn", signed, nil},
		{"blank", "", ErrMissing},
		{"empty pad", pad(t, func(*image.NRGBA) {}), ErrEmpty},
		{"a dot", pad(t, func(img *image.NRGBA) { line(img, 100, 104, 60, 3, black) }), ErrEmpty},
		{"white ink on white", pad(t, func(img *image.NRGBA) {
			line(img, 0, 400, 0, 150, color.White)
		}), ErrEmpty},
		{"faint ink", pad(t, func(img *image.NRGBA) { line(img, 40, 300, 60, 3, color.NRGBA{0, 0, 0, 20}) }), ErrEmpty},
		{"a flat line", pad(t, func(img *image.NRGBA) {
			for x := 40; x < 300; x++ {
				img.Set(x, 60, black)
			}
		}), ErrEmpty},
		{"not a png", "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("GIF89a")), ErrNotImage},
		{"another type", strings.Replace(signed, "image/png", "image/svg+xml", 1), ErrNotImage},
		{"bad base64", prefix + "!!!", ErrNotImage},
		{"too large", prefix + strings.Repeat("A", base64.StdEncoding.EncodedLen(MaxBytes)+4), ErrNotImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := Check(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Check = %v, want %v", err, tt.want)
			}
			if err == nil && !bytes.HasPrefix(raw, []byte("\x89PNG")) {
				t.Fatal("Check did not return the PNG")
			}
		})
	}
}

func TestHugeDimensionsAreRefusedBeforeDecoding(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, MaxWidth+1, 1)))
	if _, err := Check(prefix + base64.StdEncoding.EncodeToString(buf.Bytes())); !errors.Is(err, ErrNotImage) {
		t.Fatalf("Check = %v", err)
	}
}
