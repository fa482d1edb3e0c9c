# Operator diagrams: every operator of ripple.h runs under the test scheduler
# on marble inputs (pkg/diagrams/run_operators.c, through the marble API), and
# pkg/diagrams/draw.py draws what it did: an SVG that make docs puts next to
# the function in the HTML reference, and a text diagram in its man page.
# Generated from real runs, never drawn by hand, so a behaviour change shows
# in the docs; draw.py fails if an operator has no diagram.
DIAG_OUT   := $(OUT)/diagrams
DIAG_STAMP := $(DIAG_OUT)/.stamp

$(DIAG_OUT)/run_operators: pkg/diagrams/run_operators.c $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) -IInclude $< -L$(OUT)/lib -lripple -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@

$(DIAG_STAMP): $(DIAG_OUT)/run_operators pkg/diagrams/draw.py
	@rm -f $(DIAG_OUT)/*.svg $(DIAG_OUT)/*.txt
	$(DIAG_OUT)/run_operators > $(DIAG_OUT)/operators.txt
	$(PYTHON) pkg/diagrams/draw.py $(DIAG_OUT)/operators.txt $(DIAG_OUT) $(HEADER)
	@touch $@

.PHONY: diagrams
diagrams: $(DIAG_STAMP)

# The HTML reference and the man pages show them.
docs: $(DIAG_STAMP)
docs: export RIPPLE_DIAGRAMS := $(CURDIR)/$(DIAG_OUT)
$(MANOUT)/ripple.3: $(DIAG_STAMP)
MANGEN += --diagrams $(DIAG_OUT)

# Every diagram is in the HTML reference and in a man page, and the copies the
# README shows (docs/diagrams/) are what a run draws today.
.PHONY: check-diagrams
check-diagrams: docs $(MANOUT)/ripple.3
	@for f in $(DIAG_OUT)/*.svg; do n=$$(basename $$f .svg); \
	  test -f $(DOCS_OUT)/html/$$n.svg || { echo "check-diagrams: $$n has no diagram in the HTML reference"; exit 1; }; \
	  grep -qs "Marble diagram of $$n," $(MANOUT)/ripple-*.3 || { echo "check-diagrams: $$n has no diagram in its man page"; exit 1; }; \
	done
	@for f in docs/diagrams/*; do cmp -s $$f $(DIAG_OUT)/$$(basename $$f) \
	  || { echo "check-diagrams: $$f is stale (cp $(DIAG_OUT)/$$(basename $$f) $$f)"; exit 1; }; done
	@while IFS= read -r line; do grep -qxF -- "$$line" README.md \
	  || { echo "check-diagrams: README.md's text diagram differs from $(DIAG_OUT)/rpl_signal_switch_to_latest.txt"; exit 1; }; \
	done < $(DIAG_OUT)/rpl_signal_switch_to_latest.txt
	@echo "check-diagrams: $$(ls $(DIAG_OUT)/*.svg | wc -l) operators, each in the HTML reference and its man page"
CHECK_EXTRA += check-diagrams
