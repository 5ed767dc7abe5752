package web

import (
	"embed"
	"net/http"
	"path"
)

// photoFS holds the illustrations the demo's rooms and logo show: drawn
// for this project as SVG, so the demo needs no photos of anyone's.
//
//go:embed photos/*.svg
var photoFS embed.FS

// Photo serves one illustration of /photos/{name}; any other name
// answers the site's 404 page.
func (s *Site) Photo(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	body, err := photoFS.ReadFile("photos/" + path.Base(name))
	if err != nil || path.Ext(name) != ".svg" || path.Base(name) != name {
		s.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(body)
}
