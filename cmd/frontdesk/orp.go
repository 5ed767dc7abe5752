package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"frontdesk/direct"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"frontdesk/internal/deadline"
	"frontdesk/internal/outbound"
	"frontdesk/orp"
	"frontdesk/referral"
)

// orpSuites are the conformance levels whose suites this package runs
// and passes in CI: TestORP_L0 (L0-SCHEMA, L0-HASH, L0-IDEMPOTENT,
// L0-REPLAY, L0-STALE), TestORP_L1 (C1, C2 and the four L1 tests of
// §17), each on SQLite and PostgreSQL over HTTP and through /orp/mcp in
// TestORP_MCPSuite, TestORP_L2 (the six L2 cases of §17) over HTTP, and
// TestORP_L3 (L3-KINDS, L3-NEGOTIATE, L3-SPACE,
// L3-DISPUTE, L3-REPUTATION, L3-PAYOUT) over HTTP on both engines and
// through /orp/mcp.
// TestORPSuitesExist fails when a level is listed without its suite.
var orpSuites = []string{"L0", "L1", "L2", "L3"}

// orpLevels are the levels the discovery document claims. Each level
// includes the ones below it (§17), so a level is claimed only when its
// suite and every lower one pass.
var orpLevels = orp.ClaimedLevels(orpSuites)

// orpState is the running ORP host.
type orpState struct {
	host *orp.Host
}

// newORPHost builds the host on the opened store; origin is the public
// origin every ORP URL derives from. The host signs with the key ring in
// the store, created on first start. Only a serving host (serves) opens
// the click journal: a command beside a running server must not fold or
// empty the files that server appends to.
func (m *Main) newORPHost(ctx context.Context, origin string, serves bool) (*orp.Host, error) {
	origin = strings.TrimSuffix(origin, "/")
	random := m.random()
	signer, err := orp.OpenSigner(ctx, m.store, m.Clock.Now(), random)
	if err != nil {
		return nil, err
	}
	name := m.Config.ORP.Name
	if name == "" {
		name = m.Config.Business.Name
	}
	privacy := m.Config.Business.PrivacyURL
	if strings.HasPrefix(privacy, "/") {
		privacy = origin + privacy
	}
	// On SQLite the clicks' journal shares the database's disk; on
	// PostgreSQL they stay in the database, which outlives this machine.
	var journal *orp.ClickJournal
	if serves && m.Config.Store.Database == "" {
		var open func(string) (orp.JournalFile, error)
		if wrap := m.WrapJournalFile; wrap != nil {
			open = func(path string) (orp.JournalFile, error) {
				f, err := orp.OpenJournalFile(path)
				if err != nil {
					return nil, err
				}
				return wrap(f), nil
			}
		}
		dir := filepath.Join(m.Config.Store.DataDir, "clicks")
		if err := m.lockClickJournal(dir); err != nil {
			return nil, err
		}
		journal, err = orp.OpenClickJournal(ctx, dir, m.store, open)
		if err != nil {
			m.unlockClickJournal()
			return nil, err
		}
	}
	h, err := orp.New(orp.Options{
		ClickJournal: journal,
		Store:        m.store, Clock: m.Clock, Rand: random, Logger: m.Logger, Origin: origin,
		Name: name, Description: m.Config.ORP.Description,
		TermsURL: origin + "/terms", PrivacyURL: privacy, Levels: orpLevels,
		// routes serves the MCP binding at /orp/mcp whenever ORP is on.
		MCP:             true,
		ClickPerMinute:  m.Config.ORP.ClicksPerMinute,
		Sites:           m.Config.ORPSites(origin),
		BlockedDomains:  m.Config.ORP.BlockedDomains,
		MaxReport:       m.Config.ORP.MaxReportMinor,
		ProviderSecrets: map[string]string{"stripe": m.Config.ORP.StripeWebhookSecret},
		ResolverToken:   m.Config.ORP.ResolverToken,
		Signer:          signer,
		Claims:          m.Config.ORP.ClaimsCheck,
		Outbound:        outbound.Rule{Loopback: m.Config.AllowPrivate()},
		Witnesses:       m.Config.ORP.Witnesses,
		Attestation:     m.Config.ORP.Attestation,
	})
	if err != nil && journal != nil {
		err = errors.Join(err, journal.Close())
		m.unlockClickJournal()
	}
	return h, err
}

// lockClickJournal keeps every other serve off the click journal in dir
// (orp.LockJournal) until unlockClickJournal.
func (m *Main) lockClickJournal(dir string) error {
	unlock, err := orp.LockJournal(dir)
	if err != nil {
		return err
	}
	m.clickJournalLock = sync.OnceFunc(unlock)
	return nil
}

// unlockClickJournal lets another serve use the click journal again.
func (m *Main) unlockClickJournal() {
	if m.clickJournalLock != nil {
		m.clickJournalLock()
	}
}

// random is the process's random source: crypto/rand unless a test set
// its own.
func (m *Main) random() io.Reader {
	if m.Rand == nil {
		return rand.Reader
	}
	return m.Rand
}

// listReferral lists the business's referral offer paying bps basis
// points to the first location's booking form; the staff screen's partner
// page calls it too.
func (m *Main) listReferral(ctx context.Context, h *orp.Host, bps int) error {
	if len(m.Config.Locations) == 0 {
		return nil
	}
	l := m.Config.Locations[0]
	base := m.URL
	if m.Config.Deployment.PublicURL != "" {
		base = m.Config.Deployment.PublicURL
	}
	return h.ListReferralOffer(ctx, orp.ReferralOffer{Business: m.Config.Business.Name, Origin: base, Domain: l.Domain, Slug: l.Slug, BPS: bps})
}

// orpMCPBody is the largest JSON-RPC body /orp/mcp reads: one ORP message
// of orp.MaxBody with room for the JSON-RPC envelope around it.
const orpMCPBody = 2 * orp.MaxBody

// startORP starts the ORP host's background work: batched click writes and
// scheduled outcomes. It returns a function that stops it and flushes.
func (m *Main) startORP(ctx context.Context) (stop func()) {
	if m.orp == nil {
		return func() {}
	}
	h := m.orp.host
	h.Start()
	if err := h.RecordOrigin(ctx); err != nil {
		m.Logger.Error("orp record origin", "err", err)
	}
	if err := m.listReferral(ctx, h, m.Config.ORP.ReferralBps); err != nil { // the standing offer orp.referral_bps asks for
		m.Logger.Error("orp list referral offer", "err", err)
	}
	every := time.Duration(m.Config.ORP.SweepMinutes) * time.Minute
	if every == 0 {
		every = 5 * time.Minute
	}
	stopSweep := m.startJobs(ctx, job{name: "orp sweep", every: every, run: func(ctx context.Context) error {
		_, err := h.Sweep(ctx)
		return err
	}})
	return func() {
		stopSweep()
		h.Close() // writes every click the server acknowledged
		m.unlockClickJournal()
	}
}

// RunSweep runs one pass of the scheduled work and returns: the
// `frontdesk sweep` command, for an external scheduler. The host's
// origin is the configured public origin, else the one serve recorded in
// the store, else the listen address: party ids carry it, so a sweep
// under another origin would address parties that do not exist.
func (m *Main) RunSweep(ctx context.Context, out io.Writer) error {
	// A draft refuses before the store is even opened (§14).
	if err := direct.CheckSweep(m.Config.Deployment.Deployment); err != nil {
		return fmt.Errorf("sweep: %w; nothing was written", err)
	}
	// One pass of every sweep, the store's opening and closing included,
	// ends within the scheduled work deadline, whatever the store does.
	return deadline.Run(ctx, "sweep", passDeadline, func(ctx context.Context) error { return m.sweepOnce(ctx, out) })
}

// sweepOnce is one pass of RunSweep.
func (m *Main) sweepOnce(ctx context.Context, out io.Writer) (err error) {
	configured := m.Config.Deployment.PublicURL != ""
	if err := m.open(ctx, m.Addr); err != nil {
		return err
	}
	defer closing(&err, m)
	if m.Config.ORP.Enabled {
		h, err := m.offlineORPHost(ctx, configured)
		if err != nil {
			return err
		}
		m.useReferrals(h)
		res, err := h.Sweep(ctx)
		fmt.Fprintf(out, "sweep: orp outcomes=%d expired=%d revoked=%d verified=%d forgotten=%d\n",
			res.Outcomes, res.Expired, res.Revoked, res.Verified, res.Forgotten)
		if err != nil {
			return err
		}
	}
	if err := m.usp.PrintSweep(ctx, out); err != nil {
		return err
	}
	if err := m.printWebhookSweep(ctx, out); err != nil {
		return err
	}
	if err := m.guests().PrintRetention(ctx, m.Config.Privacy.RetentionDays, out); err != nil {
		return err
	}
	if err := m.bookings.PrintSweep(ctx, out); err != nil {
		return err
	}
	if err := m.printPaymentSweep(ctx, out); err != nil {
		return err
	}
	m.relayReferrals(ctx)
	return nil
}

// offlineORPHost is the ORP host of a command that does not serve.
// Party ids carry the host's origin: a command under another origin
// would address parties that do not exist. The configured public URL
// wins, then the origin serve recorded in the store.
func (m *Main) offlineORPHost(ctx context.Context, configured bool) (*orp.Host, error) {
	origin := m.Config.Deployment.PublicURL
	if stored, err := orp.StoredOrigin(ctx, m.store); err != nil {
		return nil, err
	} else if stored != "" && !configured {
		origin = stored
	}
	return m.newORPHost(ctx, origin, false)
}

// openWithReferrals opens the store, serving addr, and wires the
// referral ledger, for a command that changes reservations without
// serving. Whether the public URL came from the config is read before
// open fills it in. The caller closes m, also when this fails.
func (m *Main) openWithReferrals(ctx context.Context, addr string) error {
	configured := m.Config.Deployment.PublicURL != ""
	if err := m.open(ctx, addr); err != nil {
		return err
	}
	return m.openReferrals(ctx, configured)
}

// openReferrals wires the referral ledger into a command that changes
// reservations without serving (staff decisions, stdio), so the end of
// an attributed booking refunds or settles there as it does in serve
// (the command relays the outbox: relayReferrals, runRelay).
// It is called after open; configured says whether the public URL came
// from the config.
func (m *Main) openReferrals(ctx context.Context, configured bool) error {
	if !m.Config.ORP.Enabled {
		return nil
	}
	h, err := m.offlineORPHost(ctx, configured)
	if err != nil {
		return err
	}
	m.useReferrals(h)
	return nil
}

// useReferrals makes every door attribute bookings to partners on h, or
// on the split's ORP location, and settle each end of one there too.
func (m *Main) useReferrals(h *orp.Host) {
	payer := func(ctx context.Context) (string, error) { return m.businessParty(ctx, h) }
	m.referrals = referral.New(referral.Options{Host: h, Payer: payer, Currency: m.Config.Business.Currency, Store: m.store, Logger: m.Logger})
	m.split.UseReferrals(m.bookings, m.referrals)
}

// businessParty is the business's party on the host, the payer of the
// conversions its bookings earn partners: the one [orp] business_party
// names, else the party the host keeps for the business.
func (m *Main) businessParty(ctx context.Context, h *orp.Host) (string, error) {
	if id := m.Config.ORP.BusinessParty; id != "" {
		return id, nil
	}
	p, err := h.BusinessParty(ctx)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}
