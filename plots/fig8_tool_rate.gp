# fig8_tool_rate.gp: figure 8 of `fluidlab figures` (the rigid-tool
# paper's Fig. 7): the tool loop's steps per second against particle count.
#
# From DIR/fig8_tool_rate.csv: one block per solver (header
# "particles,<solver> (dt X ms),step_ms,dt_s"; fluid particles, steps per
# second, mean ms per step, the step in s), blocks separated by two blank
# lines; a device's blocks ("<solver> (D) (dt X ms)") drawn dashed with
# open points in the colour of the solver's CPU line. Log-log, with the
# 1 kHz of a haptic loop.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig8_tool_rate.gp    # DIR/fig8_tool_rate.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig8_tool_rate.gp    # DIR/fig8_tool_rate.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig8_tool_rate"
width = 900
height = 650
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set title "Tool-loop rate: steps per second against particle count (figure 8)"
set logscale xy
set xlabel "fluid particles"
set ylabel "tool-loop steps per second (Hz)"
set key bottom left
stats data_file using 2 name "R" nooutput
set yrange [(R_min < 1000 ? R_min : 1000) / 2 : (R_max > 1000 ? R_max : 1000) * 2]
# the blocks' solvers, a word each ("pbf", "pbf_(cuda)"): a device's block
# takes the linetype of its solver's CPU block
heads = system(sprintf("sed -n 's/^particles,\\([^ ]*\\( ([a-z]*)\\)\\{0,1\\}\\) (dt.*/\\1/p' '%s' | tr ' ' '_'", data_file))
on_device(i) = strstrt(word(heads, i + 1), "_(") > 0
solver_of(h) = strstrt(h, "_(") > 0 ? h[1:strstrt(h, "_(") - 1] : h
first_block(s, k) = k > words(heads) ? 0 : word(heads, k) eq s ? k : first_block(s, k + 1)
line_of(i) = first_block(solver_of(word(heads, i + 1)), 1)
dash_of(i) = on_device(i) ? 2 : 1
point_of(i) = on_device(i) ? 6 : 7
plot for [i=0:S_blocks-1] data_file index i using 1:2 with linespoints lt line_of(i) dt dash_of(i) \
     pt point_of(i) lw 1.5 title columnheader(2), \
     1000 with lines lw 2 lc rgb "black" dt 4 title "1 kHz (haptic loop)"
unset output
