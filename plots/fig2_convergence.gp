# fig2_convergence.gp: figure 2 of `fluidlab figures` (the PBF paper's Fig. 6).
#
# Convergence over iterations in the dam break at t = 1.0 s. Left, from
# DIR/fig2_convergence.csv: the mean (solid) and largest (dashed)
# compression (%) after each iteration
# of the particle solvers, one block per solver (header
# "iteration,<label> average,<label> max"; iteration, average %, max %).
# Right, from DIR/fig2_pressure.csv: the relative residual of FLIP's
# pressure solve per CG iteration, one block per preconditioner (header
# "iteration,<label>"). Blocks are separated by two blank lines.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig2_convergence.gp    # DIR/fig2_convergence.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig2_convergence.gp    # DIR/fig2_convergence.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig2_convergence"
width = 1200
height = 550
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"
pressure_file = dir . "/fig2_pressure.csv"
stats pressure_file using 0 name "P" nooutput
if (!exists("P_records") || P_records == 0) {
    print sprintf("fig2_convergence.gp: %s: cannot read it, or it has no data rows", pressure_file)
    exit status 1
}

set multiplot layout 1,2 title "Convergence over iterations: dam break at t = 1.0 s (figure 2)"
set logscale y
set format y "%.0e"
set key top right
set xlabel "iteration"
set ylabel "mean compression (%)"
plot for [i=0:S_blocks-1] data_file index i using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc i + 1 title columnheader(2), \
     for [i=0:S_blocks-1] data_file index i using 1:3 with lines dt 2 lw 1 lc i + 1 title columnheader(3)
set ylabel "relative residual of the pressure solve"
plot for [i=0:P_blocks-1] pressure_file index i using 1:2 with lines lw 1.5 title columnheader(2)
unset multiplot
unset output
