# course_epsilon.gp: lesson 8's sweep (`fluidlab course 8`): what the
# relaxation epsilon of PBF's lambda does to one step of the 2D tank, from
# DIR/epsilon.csv (written by bench/course.c: a header and one row per
# epsilon, as a fraction of a full neighborhood's sum of squared
# gradients: epsilon, then the max and the mean compression, %, before the
# step's first correction and after its 20th Jacobi iteration).
#
# Usage (gnuplot 5.4):
#   gnuplot -e "dir='out/course/8'" plots/course_epsilon.gp                 # epsilon.png
#   gnuplot -e "dir='out/course/8'" -e "fmt='svg'" plots/course_epsilon.gp  # epsilon.svg
# A missing or empty epsilon.csv stops gnuplot with an error and a non-zero
# exit before any picture is written.

if (!exists("dir")) dir = "."
if (!exists("fmt")) fmt = "png"
if (fmt ne "png" && fmt ne "svg") {
    print sprintf("course_epsilon.gp: fmt='%s': expected 'png' or 'svg'", fmt)
    exit status 1
}
data_file = dir . "/epsilon.csv"
out_file = dir . "/epsilon." . fmt

set datafile separator comma
stats data_file using 1 nooutput

if (fmt eq "png") {
    set terminal pngcairo size 900,600 enhanced font ",11"
} else {
    set terminal svg size 900,600 enhanced font ",11"
}
set output out_file
set title "One PBF step (20 Jacobi iterations) of the 2D tank at t = 2 s against the relaxation {/Symbol e}"
set xlabel "cfm\\_epsilon: {/Symbol e} as a fraction of a full neighborhood's {/Symbol S}|{/Symbol \321}C|^2"
set ylabel "compression (%)"
set logscale xy
set key top left
set grid
plot data_file using 1:2 with linespoints lw 2 pt 7 dt 2 lc 1 title "max, before the step's corrections", \
     data_file using 1:4 with linespoints lw 2 pt 7 lc 1 title "max, after 20 iterations", \
     data_file using 1:3 with linespoints lw 2 pt 5 dt 2 lc 2 title "mean, before", \
     data_file using 1:5 with linespoints lw 2 pt 5 lc 2 title "mean, after 20 iterations"
