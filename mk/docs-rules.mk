# The docs stand alone: every "rule N" cited in the tree has its anchor in
# docs/behaviour.md, and no file points at a document outside the repository.
.PHONY: check-docs
check-docs:
	@$(PYTHON) Tests/check_docs.py

CHECK_EXTRA += check-docs
