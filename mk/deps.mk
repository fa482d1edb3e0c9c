# make deps: every Debian and PyPI package a target needs (scripts/deps.sh,
# lists per concern in scripts/deps/*.apt and *.pip; add a file there for a new
# suite). Rules that need a package take $(DEPS_OK) as an order-only
# prerequisite, so make check, make test and make demo install them first, once;
# the stamp is remade when a list changes, and always by `make deps`.
DEPS_OK := $(OUT)/.deps-ok
.PHONY: deps
deps: $(DEPS_OK)
$(DEPS_OK): scripts/deps.sh $(wildcard scripts/deps/*.apt scripts/deps/*.pip) $(if $(filter deps,$(MAKECMDGOALS)),FORCE)
	@PYTHON=$(PYTHON) bash scripts/deps.sh
	@mkdir -p $(dir $@) && touch $@
