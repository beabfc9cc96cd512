# fig3_stages.gp: figure 3 of `fluidlab figures` (the PBF paper's Table 2).
#
# Stage timings per solver on the same scene. Left, from
# DIR/fig3_stages.csv: the median ms per step of each stage, stacked; right,
# from DIR/fig3_percent.csv: each stage's share (%). Both have a header
# "solver,<stage>,..." and one row per solver.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig3_stages.gp    # DIR/fig3_stages.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig3_stages.gp    # DIR/fig3_stages.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig3_stages"
width = 1200
height = 550
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"
percent_file = dir . "/fig3_percent.csv"

set multiplot layout 1,2 title "Stage timings: dam break, every solver at the same particle count (figure 3)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set key outside bottom horizontal
set xtics rotate by -30
set ylabel "ms per step"
plot for [c=2:*] data_file using c:xtic(1) title columnheader(c)
set ylabel "share of the step (%)"
set yrange [0:100]
plot for [c=2:*] percent_file using c:xtic(1) title columnheader(c)
unset multiplot
unset output
