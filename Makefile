# The two commands: `make demo` and `make test`. Both install missing Debian packages first.
.PHONY: demo test bench docs

demo:
	scripts/demo.sh

test:
	scripts/test.sh

bench:
	scripts/bootstrap.sh test
	dbus-run-session -- scripts/with-secret-service.sh swift run -c release coffer-bench all

# Every library's documentation (DocC), with no warnings; the archives go to .build/docs.
docs:
	scripts/bootstrap.sh build
	scripts/docs.sh
