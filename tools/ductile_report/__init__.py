"""ductile_report -- the HTML page of a Ductile job's report (tools/ductile-report):
model.py takes the figures from the report, charts.py draws them with
matplotlib as SVG, page.py puts them with their tables into one page."""
