# fig4_stability.gp: figure 4 of `fluidlab figures` (timestep stability).
#
# From DIR/fig4_stability.csv: one row per case with the columns solver,
# solver_index, substeps, substeps_index, dt, status (1 stable for 3 s,
# 0 unstable, -1 did not run), failed_at (s) and largest_stable_dt (s, the
# solver's, 0 when none was stable). Left: the largest stable dt per
# solver; right: the solver x steps-per-frame map.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig4_stability.gp    # DIR/fig4_stability.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig4_stability.gp    # DIR/fig4_stability.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig4_stability"
width = 1300
height = 550
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"
set datafile columnheaders

set multiplot layout 1,2 title "Timestep stability: dam break for 3 s at 60 frames per second (figure 4)"
set style fill solid 0.8 border -1
set boxwidth 0.6
set logscale y
set ylabel "largest stable dt (ms)"
set xtics rotate by -30
set key off
plot data_file using 2:($8 > 0 ? 1000 * $8 : NaN):xtic(1) with boxes lc rgb "#4477aa"
unset logscale y
unset xtics
set xtics
set xlabel "steps per 60 Hz frame"
set offsets 0.5, 0.5, 0.5, 0.5
unset ylabel
set key outside top center horizontal
plot data_file using 4:(NaN):xtic(3) notitle, data_file using (NaN):2:ytic(1) notitle, \
     data_file using 4:($6 == 1 ? $2 : NaN) with points pt 5 ps 3 lc rgb "#228833" title "stable for 3 s", \
     data_file using 4:($6 == 0 ? $2 : NaN) with points pt 5 ps 3 lc rgb "#cc3311" title "unstable (label: when)", \
     data_file using 4:($6 == -1 ? $2 : NaN) with points pt 4 ps 3 lc rgb "#777777" title "did not run", \
     data_file using 4:($6 == 0 ? $2 : NaN):(sprintf("%.2f s", $7)) with labels offset 0,1.4 font ",8" notitle
unset multiplot
unset output
