# bench_scaling.gp: `fluidlab bench --scaling`'s figure: each solver's
# speed-up over one thread against the thread count, log-log, with the
# ideal line (speed-up = threads), from DIR/scaling.csv: one block per
# solver (header "threads,<solver>,speedup,efficiency"; threads, median ms
# a step, speed-up, efficiency), blocks separated by two blank lines.
#
# Usage (gnuplot 5.4), DIR the figure's folder (default out/bench):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/bench_scaling.gp    # DIR/scaling.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/bench_scaling.gp    # DIR/scaling.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/bench"
if (!exists("fmt")) fmt = "png"
name = "scaling"
width = 800
height = 600
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set title "Thread scaling: speed-up of a step over one thread"
set logscale xy 2
set xlabel "OpenMP threads"
set ylabel "speed-up (median ms a step on 1 thread / on N)"
set key top left
stats data_file using 1 name "T" nooutput
set xrange [0.9:T_max * 1.1]
set yrange [*:T_max * 1.1]
plot x with lines dt 2 lc rgb "gray40" title "ideal", \
     for [i=0:S_blocks-1] data_file index i using 1:3 with linespoints lw 1.5 pt 7 title columnheader(2)
unset output
