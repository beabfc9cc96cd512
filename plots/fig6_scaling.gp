# fig6_scaling.gp: figure 6 of `fluidlab figures` (cost scaling).
#
# ms per step against the number of particles, log-log, one line per
# solver, from DIR/fig6_scaling.csv: one block per solver (header
# "particles,<solver>"; particles, median ms per step), blocks separated
# by two blank lines.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig6_scaling.gp    # DIR/fig6_scaling.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig6_scaling.gp    # DIR/fig6_scaling.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig6_scaling"
width = 900
height = 650
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set title "Cost scaling: ms per step against particle count (figure 6)"
set logscale xy
set xlabel "fluid particles"
set ylabel "ms per step"
set key top left
plot for [i=0:S_blocks-1] data_file index i using 1:2 with linespoints pt 7 lw 1.5 title columnheader(2)
unset output
