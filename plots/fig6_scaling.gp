# fig6_scaling.gp: figure 6 of `fluidlab figures` (cost scaling).
#
# ms per step against the number of particles, log-log, one line per
# solver, from DIR/fig6_scaling.csv: one block per solver (header
# "particles,<solver>"; particles, median ms per step), blocks separated
# by two blank lines. With `figures --device D` the CPU's blocks are
# followed by one per solver on D (header "particles,<solver> (D)"), drawn
# dashed with open points in the colour of the solver's CPU line.
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
# the blocks' headers, a word each ("pbf", "pbf_(D)"): a device's block
# takes the linetype of its solver's CPU block
heads = system(sprintf("sed -n 's/^particles,//p' '%s' | tr ' ' '_'", data_file))
on_device(i) = strstrt(word(heads, i + 1), "_(") > 0
solver_of(h) = strstrt(h, "_(") > 0 ? h[1:strstrt(h, "_(") - 1] : h
first_block(s, k) = k > words(heads) ? 0 : word(heads, k) eq s ? k : first_block(s, k + 1)
line_of(i) = first_block(solver_of(word(heads, i + 1)), 1)
dash_of(i) = on_device(i) ? 2 : 1
point_of(i) = on_device(i) ? 6 : 7
plot for [i=0:S_blocks-1] data_file index i using 1:2 with linespoints lt line_of(i) dt dash_of(i) \
     pt point_of(i) lw 1.5 title columnheader(2)
unset output
