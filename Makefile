# The two commands: `make demo` and `make test`. Both install missing Debian packages first.
# Also: `make fuzz` (libFuzzer over the parsers, FUZZ_SECONDS a target) and `make sanitize`
# (the whole suite under ThreadSanitizer and AddressSanitizer).
.PHONY: demo test bench fuzz sanitize

demo:
	scripts/demo.sh

test:
	scripts/test.sh

bench:
	scripts/bootstrap.sh test
	dbus-run-session -- scripts/with-secret-service.sh swift run -c release coffer-bench all

fuzz:
	scripts/fuzz.sh

sanitize:
	scripts/sanitize.sh
