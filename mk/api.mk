# One reading of the header: scripts/gen_api.py turns clang's reading of
# ripple.h into the manifest (abi/api.json), Python's cffi declarations and
# their types (bindings/python/ripple/_capi.py, _capi.pyi) and ripple-sys's
# declarations (bindings/rust/ripple-sys/src/generated.rs). They are committed:
#   make regen            rewrite them after a change to ripple.h
#   make check-generated  fail when one is stale (in make test and make check)
API_MANIFEST := abi/api.json
GEN_API      := $(PYTHON) scripts/gen_api.py
# The header's functions, one per line, from the manifest.
API_FUNCTIONS = $(PYTHON) -c 'import json, sys; print("\n".join(f["name"] for f in json.load(open(sys.argv[1]))["functions"]))' $(API_MANIFEST)

.PHONY: regen check-generated
regen:
	$(GEN_API)
check-generated:
	@$(GEN_API) --check
