# The two commands: `make demo` and `make test`. Both install missing Debian packages first.
# `make torture` runs the full fault campaign (scripts/torture.py); replay a run with
# `make torture TORTURE="--seed N"`.
.PHONY: demo test bench docs torture

demo:
	scripts/demo.sh

test:
	scripts/test.sh

torture:
	scripts/torture.sh $(TORTURE)

bench:
	scripts/bootstrap.sh test
	dbus-run-session -- scripts/with-secret-service.sh swift run -c release coffer-bench all

# Every library's documentation (DocC), with no warnings; the archives go to .build/docs.
docs:
	scripts/bootstrap.sh build
	scripts/docs.sh
