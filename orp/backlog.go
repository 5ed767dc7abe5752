package orp

// ClickBacklog is how many answered clicks wait for the click writer: a
// number that grows and stays up means the store cannot keep up.
func (h *Host) ClickBacklog() int {
	if h.clicks == nil {
		return 0
	}
	h.clicks.mu.Lock()
	defer h.clicks.mu.Unlock()
	return len(h.clicks.queue)
}
