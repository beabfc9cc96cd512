# course_convergence.gp: lesson 7's picture (`fluidlab course 7`): the mean
# compression after each iteration of one PBF step of the 2D tank, for each
# of the course deck's constraint solvers side by side, from
# DIR/convergence.csv (written by bench/course.c: a header
# "iteration,<solver>,..." and one row per iteration, compressions in %).
#
# Usage (gnuplot 5.4):
#   gnuplot -e "dir='out/course/7'" plots/course_convergence.gp                 # convergence.png
#   gnuplot -e "dir='out/course/7'" -e "fmt='svg'" plots/course_convergence.gp  # convergence.svg
# A missing or empty convergence.csv stops gnuplot with an error and a
# non-zero exit before any picture is written.

if (!exists("dir")) dir = "."
if (!exists("fmt")) fmt = "png"
if (fmt ne "png" && fmt ne "svg") {
    print sprintf("course_convergence.gp: fmt='%s': expected 'png' or 'svg'", fmt)
    exit status 1
}
data_file = dir . "/convergence.csv"
out_file = dir . "/convergence." . fmt

set datafile separator comma
stats data_file using 1 nooutput
columns = STATS_columns

if (fmt eq "png") {
    set terminal pngcairo size 900,600 enhanced font ",11"
} else {
    set terminal svg size 900,600 enhanced font ",11"
}
set output out_file
set title "One PBF step of the 2D tank at t = 2 s: the deck's constraint solvers"
set xlabel "iteration"
set ylabel "mean compression after the iteration (%)"
set key bottom left
set grid
plot for [c=2:columns] data_file using 1:c with linespoints lw 2 pt 7 ps 0.6 title columnhead(c)
