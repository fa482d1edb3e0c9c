# make bench: the benchmark table (bench/*.c), then the Python binding's
# bench.py and the C++ layer's rows (bench-cpp).
BENCH_SRC := $(wildcard bench/*.c)
.PHONY: bench bench-python bench-cpp
$(OUT)/bench: $(BENCH_SRC) $(HEADER) $(LIB)
	$(CC) -O2 -g -Wall -IInclude $(BENCH_SRC) -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
bench: $(OUT)/bench $(STAGE_OK)
	$(OUT)/bench
	@echo
	@echo "Python binding (bindings/python/bench.py; make bench-python compares with RxPY):"
	RIPPLE_HEADER=$(STAGE)/include/ripple.h CC=$(CC) $(PYTHON) bindings/python/_build_backend/ripple_backend.py \
	  $(OUT)/python-ext >/dev/null
	RIPPLE_LIBRARY=$(STAGE)/lib/$(SONAME) RIPPLE_CEXT_DIR=$(CURDIR)/$(OUT)/python-ext \
	  PYTHONPATH=$(CURDIR)/bindings/python $(PYTHON) bindings/python/bench.py

# The same table against two libraries in one run, for before/after figures:
#   make bench-compare BENCH_BASE=dir [BENCH_SECTIONS="core subjects"]
# dir holds the base build's libripple.so.0 (e.g. an older release's
# build/lib); each section runs against it, then against this tree's library.
BENCH_BASE ?=
BENCH_SECTIONS ?=
.PHONY: bench-compare
bench-compare: $(OUT)/bench
	@test -n "$(BENCH_BASE)" -a -e "$(BENCH_BASE)/$(SONAME)" || { echo "bench-compare: set BENCH_BASE to a directory holding $(SONAME)"; exit 2; }
	@bench/compare.sh $(OUT)/bench $(abspath $(BENCH_BASE)) $(CURDIR)/$(OUT)/lib $(BENCH_SECTIONS)

# Python binding against RxPY (not part of make check): a virtualenv with
# reactivex from PyPI and the binding pip-installed (so with its compiled core,
# built against the staged header); Ripple, RxPY and a plain loop on the same
# workloads and lambdas in one run, with the ratios Ripple / RxPY.
PY_BENCH_VENV = $(OUT)/python-bench-venv
bench-python: $(STAGE_OK)
	rm -rf $(PY_BENCH_VENV)
	$(PYTHON) -m venv $(PY_BENCH_VENV)
	$(PY_BENCH_VENV)/bin/pip install -q --disable-pip-version-check reactivex cffi
	RIPPLE_HEADER=$(STAGE)/include/ripple.h CC=$(CC) $(PY_BENCH_VENV)/bin/pip install -q --disable-pip-version-check \
	  --no-build-isolation bindings/python
	cd $(OUT) && RIPPLE_LIBRARY=$(STAGE)/lib/$(SONAME) $(CURDIR)/$(PY_BENCH_VENV)/bin/python $(CURDIR)/bindings/python/bench.py

# ripple.hpp against the C API (bench/bench_cpp.cpp), built with each C++
# compiler present: subject -> 1, map -> filter -> scan, 100 subscribers, each
# row next to its C baseline from the same run (target: within 10%).
BENCH_CXXS ?= g++ clang++
bench-cpp: $(LIB) $(OUT)/bench
	@mkdir -p $(OUT)
	@$(CC) -O2 -g -Wall -Werror -IInclude -c bench/bench_chain.c -o $(OUT)/bench_chain.o
	@for cxx in $(BENCH_CXXS); do \
	  if ! command -v $$cxx >/dev/null 2>&1; then echo "bench-cpp: no $$cxx, skipped"; continue; fi; \
	  $$cxx -O2 -g -std=c++17 -Wall -Wextra -Werror -IInclude -Ibindings/cpp bench/bench_cpp.cpp $(OUT)/bench_chain.o -L$(OUT)/lib -lripple -lpthread \
	    -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(OUT)/bench_cpp_$$cxx && echo && $(OUT)/bench_cpp_$$cxx || exit 1; done
bench: bench-cpp
