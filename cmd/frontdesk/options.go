package main

import (
	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/mail"
	"frontdesk/usp"
	"frontdesk/web"
)

// The options each service is handed, built from the file: no package
// but this command reads config.Config.

// bookingConfig is what direct booking reads of the file.
func bookingConfig(c config.Config) direct.Config {
	return direct.Config{Portfolio: c.Portfolio, Mail: c.Mail.Addresses, Deployment: c.Deployment.Deployment}
}

// smtpServer is the submission server the [mail] settings name.
func smtpServer(c config.Mail) mail.Server {
	return mail.Server{Host: c.SMTPHost, Port: c.SMTPPort, User: c.SMTPUser, Password: c.SMTPPassword, From: c.From}
}

// uspConfig is what the USP business side reads of the file.
func uspConfig(c config.Config) usp.Config {
	out := usp.Config{Portfolio: c.Portfolio, AllowPrivate: c.AllowPrivate(), Profiles: uspProfileFetch(c.USP), Mode: c.USP.Mode}
	for _, p := range c.USP.Platforms {
		out.Platforms = append(out.Platforms, usp.Platform(p))
	}
	return out
}

// uspProfileFetch is how the [usp] settings bound profile fetches.
func uspProfileFetch(u config.USP) usp.ProfileFetch {
	return usp.ProfileFetch{CacheEntries: u.ProfileCacheEntries, CacheMaxSeconds: u.ProfileCacheMaxSeconds,
		MaxBytes: u.ProfileMaxBytes, StaleMaxSeconds: u.ProfileStaleMaxSeconds, CAFile: u.ProfileCAFile}
}

// webConfig is what the guest site and the staff screen read of the file.
func webConfig(c config.Config) web.Config {
	return web.Config{Portfolio: c.Portfolio, PublicURL: c.Deployment.PublicURL, ORPEnabled: c.ORP.Enabled, RemembersReferrals: c.RemembersReferrals()}
}
