"""report.md, appendix.md and report.html: tables, sections and the written conclusions."""
