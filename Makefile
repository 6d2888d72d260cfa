# The two commands: `make demo` and `make test`. Both install missing Debian packages first.
# `make torture` runs the full fault campaign (scripts/torture/, a Python package); replay a run with
# `make torture TORTURE="--seed N"`.
# Also: `make fuzz` (libFuzzer over the parsers, FUZZ_SECONDS a target), `make sanitize`
# (the whole suite under ThreadSanitizer and AddressSanitizer), `make docs`, `make man`,
# `make bench-cli` (the CLI against secret-tool, git-credential-coffer against git's libsecret helper),
# `make pam` (the PAM module, .build/pam/pam_coffer.so; docs/login-unlock.md installs it).
.PHONY: demo test bench bench-cli docs man torture fuzz sanitize pam

demo:
	scripts/demo.sh

test:
	scripts/test.sh

torture:
	scripts/torture.sh $(TORTURE)

bench:
	scripts/bootstrap.sh test
	swift build -c release --product coffer
	swift build -c release --product CofferCommands
	swift build -c release --product coffer-agent
	dbus-run-session -- scripts/with-secret-service.sh swift run -c release coffer-bench all

# coffer get against secret-tool lookup, and git credential fill with git-credential-coffer against
# git's libsecret helper (hyperfine, interleaved; peak RSS): docs/performance.md's tables.
bench-cli:
	scripts/bench-cli.sh

# Every library's documentation (DocC), with no warnings; the archives go to .build/docs.
docs:
	scripts/bootstrap.sh build
	scripts/docs.sh

# Manual pages from the commands, into .build/man (view: man -l .build/man/coffer.1).
man:
	scripts/bootstrap.sh test
	scripts/man.sh

# With the C compiler alone: a SwiftPM dynamic library would load the Swift runtime into sshd.
pam:
	scripts/bootstrap.sh build
	scripts/pam-module.sh .build/pam

fuzz:
	scripts/fuzz.sh

sanitize:
	scripts/sanitize.sh
