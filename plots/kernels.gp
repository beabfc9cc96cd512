# kernels.gp: the SPH kernels side by side (`fluidlab kernels`): poly6,
# spiky, viscosity and the cubic spline against r/h in three panels: the
# value W, the slope dW/dr and the Laplacian.
#
# Usage (gnuplot 5.4):
#   gnuplot -e "data='out/kernels/kernels.csv'" -e "out='out/kernels/kernels.png'" \
#           -e "fmt='png'" -e "title='...'" -e "wrange='0 5.5'" \
#           -e "drange='-16.5 3.6'" plots/kernels.gp
# Variables:
#   data     kernels.csv (its columns: bench/kernels_plot.c, docs/pictures.md);
#            an empty field has no value (the viscosity kernel at r = 0)
#   out      the picture to write
#   fmt      png or svg
#   title    the title over the panels
#   wrange   "LO HI": the W panel's range (the viscosity kernel's W, infinite
#            at r = 0, runs off its top)
#   drange   "LO HI": the dW/dr panel's range (its slope runs off the bottom)

if (fmt eq "png") {
    set terminal pngcairo size 1500, 520 font ",10"
} else {
    set terminal svg size 1500, 520 font ",10" dynamic
}
set output out
set termoption noenhanced
set datafile separator comma
set key top right
set grid
set xrange [0 : 1]
set xlabel "r / h"
set multiplot layout 1, 3 title title
set title "W"
set yrange [real(word(wrange, 1)) : real(word(wrange, 2))]
plot data using 1:2 skip 1 with lines lw 2 lc rgb "#1f77b4" title "poly6", \
     data using 1:5 skip 1 with lines lw 2 lc rgb "#d62728" title "spiky", \
     data using 1:7 skip 1 with lines lw 2 lc rgb "#2ca02c" title "viscosity", \
     data using 1:10 skip 1 with lines lw 2 lc rgb "#9467bd" title "cubic spline"
set title "dW/dr"
set yrange [real(word(drange, 1)) : real(word(drange, 2))]
set key bottom right
plot data using 1:3 skip 1 with lines lw 2 lc rgb "#1f77b4" title "poly6", \
     data using 1:6 skip 1 with lines lw 2 lc rgb "#d62728" title "spiky", \
     data using 1:8 skip 1 with lines lw 2 lc rgb "#2ca02c" title "viscosity", \
     data using 1:11 skip 1 with lines lw 2 lc rgb "#9467bd" title "cubic spline"
set title "Laplacian (spiky: none at r = 0, left out)"
set autoscale y
plot data using 1:4 skip 1 with lines lw 2 lc rgb "#1f77b4" title "poly6", \
     data using 1:9 skip 1 with lines lw 2 lc rgb "#2ca02c" title "viscosity (the solvers' kernel)", \
     data using 1:12 skip 1 with lines lw 2 lc rgb "#9467bd" title "cubic spline"
unset multiplot
unset output
