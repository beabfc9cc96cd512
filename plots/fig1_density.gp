# fig1_density.gp: figure 1 of `fluidlab figures` (the PBF paper's Fig. 4).
#
# Density over time in the drop scene, one line per case, from
# DIR/fig1_density.csv (written by bench/figures.c): one block per case,
# blocks separated by two blank lines, each opening with the header
# "time,<label>,<label>" and holding the time (s), rho_max / rho0 and
# 1 + the mean compression.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig1_density.gp    # DIR/fig1_density.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig1_density.gp    # DIR/fig1_density.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig1_density"
width = 900
height = 800
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set multiplot layout 2,1 title "Density over time: the drop (figure 1)"
set key outside right top
set xlabel "simulated time (s)"
set ylabel "largest density, rho_max / rho_0"
plot for [i=0:S_blocks-1] data_file index i using 1:2 with lines lw 1.5 title columnheader(2)
set ylabel "1 + mean compression"
plot for [i=0:S_blocks-1] data_file index i using 1:3 with lines lw 1.5 title columnheader(3)
unset multiplot
unset output
