# fig5_front.gp: figure 5 of `fluidlab figures` (dam break validation).
#
# The surge front against Martin & Moyce (1952), non-dimensional: Z = x / a
# against T = t sqrt(2 g / a). From DIR/fig5_front.csv: the first block
# (header "T,Martin & Moyce") is their measurements, drawn as points; each
# further block (header "T,<solver>") a run's front, drawn as a line.
# Blocks are separated by two blank lines.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig5_front.gp    # DIR/fig5_front.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig5_front.gp    # DIR/fig5_front.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig5_front"
width = 900
height = 650
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set title "Dam-break surge front against Martin & Moyce (figure 5)"
set xlabel "T = t sqrt(2 g / a)"
set ylabel "Z = x / a"
set xrange [0:*]
set key top left
plot data_file index 0 using 1:2 with points pt 7 ps 1.3 lc rgb "black" title columnheader(2), \
     for [i=1:S_blocks-1] data_file index i using 1:2 with lines lw 1.5 title columnheader(2)
unset output
