# fig7_tool_force.gp: figure 7 of `fluidlab figures` (the rigid-tool
# paper's Fig. 6): the fluid's force on the tool over time.
#
# From DIR/fig7_tool_force.csv (header "time,fx,fy,fz": s, and the force on
# the tool in N after every step of scenes/tool_cup.json under PBF) and
# DIR/fig7_tool_phases.csv (header "phase,start,end": each moving segment
# of the tool's path, s): x solid, y dotted, z dashed, as in the paper;
# the phases between grey lines, named above them.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig7_tool_force.gp    # DIR/fig7_tool_force.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig7_tool_force.gp    # DIR/fig7_tool_force.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig7_tool_force"
width = 1000
height = 600
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

phases = dir . "/fig7_tool_phases.csv"
stats data_file using 2 name "FX" nooutput
stats data_file using 3 name "FY" nooutput
stats data_file using 4 name "FZ" nooutput
lo = FX_min < FY_min ? (FX_min < FZ_min ? FX_min : FZ_min) : (FY_min < FZ_min ? FY_min : FZ_min)
hi = FX_max > FY_max ? (FX_max > FZ_max ? FX_max : FZ_max) : (FY_max > FZ_max ? FY_max : FZ_max)
pad = hi > lo ? 0.08 * (hi - lo) : 1.0
set yrange [lo - pad : hi + 3 * pad]
set title "Force on the tool: tool_cup under PBF (figure 7)"
set xlabel "simulated time (s)"
set ylabel "force on the tool (N)"
set key bottom right
# the phases' lines and names, when the file has rows
has_phases = system(sprintf("test -s '%s' && sed -n '2p' '%s' | grep -c .", phases, phases)) + 0
if (has_phases) {
    plot phases every ::1 using 2:(lo - pad):(0):(hi - lo + 4 * pad) with vectors nohead dt 2 lc rgb "gray40" notitle, \
         phases every ::1 using 3:(lo - pad):(0):(hi - lo + 4 * pad) with vectors nohead dt 2 lc rgb "gray40" notitle, \
         phases every ::1 using (($2 + $3) / 2):(hi + 2 * pad):1 with labels notitle, \
         data_file using 1:2 with lines lw 1.2 lc rgb "#1f77b4" dt 1 title "x", \
         data_file using 1:3 with lines lw 1.2 lc rgb "#d62728" dt 3 title "y", \
         data_file using 1:4 with lines lw 1.2 lc rgb "#2ca02c" dt 2 title "z"
} else {
    plot data_file using 1:2 with lines lw 1.2 lc rgb "#1f77b4" dt 1 title "x", \
         data_file using 1:3 with lines lw 1.2 lc rgb "#d62728" dt 3 title "y", \
         data_file using 1:4 with lines lw 1.2 lc rgb "#2ca02c" dt 2 title "z"
}
unset output
