# grid.gp: the MAC grid of a FLIP or PIC run at one frame (`fluidlab run
# --save grid`), its middle z-slice in three panels: the pressure as a
# heat map with the velocity as arrows, the divergence of the velocity
# before the pressure projection, and after it, the two divergences on one
# colour scale, so that the second panel shows what the projection
# removed. FLUID cells are outlined, cells that were not FLUID in the
# projection left blank, SOLID cells grey, and the surfaces of a rigid
# tool and of solid meshes, given, black lines.
#
# Usage (gnuplot 5.4, pngcairo):
#   gnuplot -e "data='frames/0003_grid.csv'" -e "out='frames/0003_grid.png'" \
#           -e "title='...'" -e "box='0 1.2 0 0.5'" -e "dx='0.02'" \
#           -e "div='12.5'" -e "arrow='0.004'" -e "every='1'" \
#           -e "layout='rows'" -e "size='900 1200'" plots/grid.gp
# Variables:
#   data     CSV with a header line, one row a cell: i, j, x, y (its centre,
#            m), label (0 FLUID, 1 AIR, 2 SOLID), pressure (Pa), div_before,
#            div_after (1/s), u, v (m/s, at the centre); NaN where a value
#            is not defined (not FLUID)
#   out      the PNG to write
#   title    the title over the panels
#   box      "XLO XHI YLO YHI": the range shown, m
#   dx       the cell size, m
#   div      the divergence colour scale runs from -div to div, 1/s
#   arrow    metres of arrow per m/s
#   every    an arrow every N cells along each axis
#   layout   rows (panels one above the other) or cols (side by side)
#   size     "W H" in pixels
#   tool     (optional) CSV with a header line: x1, y1, x2, y2 (m), one
#            segment a row: the outline of a rigid tool's surface in the
#            slice's plane, drawn in black over every panel
#   meshes   (optional) the same for the scene's solid meshes

set terminal pngcairo size int(word(size, 1)), int(word(size, 2)) font ",10"
set output out
set termoption noenhanced
set datafile separator comma
set datafile missing "NaN"
xlo = real(word(box, 1)); xhi = real(word(box, 2)); ylo = real(word(box, 3)); yhi = real(word(box, 4))
d = real(dx); a = real(arrow); n = int(every); D = real(div)
set xrange [xlo : xhi]
set yrange [ylo : yhi]
set size ratio -1
set xlabel "x (m)"
set ylabel "y (m)"
unset key
set style fill solid border lc rgb "#c8c8c8"
if (layout eq "rows") {
    set multiplot layout 3, 1 title title
} else {
    set multiplot layout 1, 3 title title
}
solid(l) = l == 2 ? 1 : NaN
on(i, j) = (int(i) % n == 0 && int(j) % n == 0) ? 1 : NaN
# the outlines of the tool and the solid meshes, appended to each panel's
# plot when given
set macros
outline(v) = ", " . v . " using 1:2:($3 - $1):($4 - $2) skip 1 with vectors nohead lw 2 lc rgb '#000000'"
T = (exists("tool") ? outline("tool") : "") . (exists("meshes") ? outline("meshes") : "")
# a cell is a box of side dx around its centre
set title "pressure (Pa) and velocity"
set cblabel "p (Pa)"
set palette defined (0 "#30123b", 0.25 "#4686fb", 0.5 "#1ae4b6", 0.75 "#faba39", 1 "#7a0403")
set autoscale cbfix
plot data using 3:4:(d / 2):(d / 2):6 skip 1 with boxxy lc palette, \
     data using 3:4:(d / 2):(d / 2 * solid($5)) skip 1 with boxxy fs solid noborder lc rgb "#9a9a9a", \
     data using 3:4:(a * $9 * on($1, $2)):(a * $10 * on($1, $2)) skip 1 with vectors head size d / 3, 20 filled lc rgb "#000000" @T
set palette defined (0 "#2166ac", 0.5 "#f7f7f7", 1 "#b2182b")
set cbrange [-D : D]
set cblabel "div u (1/s)"
set title "divergence before the projection"
plot data using 3:4:(d / 2):(d / 2):7 skip 1 with boxxy lc palette, \
     data using 3:4:(d / 2):(d / 2 * solid($5)) skip 1 with boxxy fs solid noborder lc rgb "#9a9a9a" @T
set title "divergence after the projection (same scale)"
plot data using 3:4:(d / 2):(d / 2):8 skip 1 with boxxy lc palette, \
     data using 3:4:(d / 2):(d / 2 * solid($5)) skip 1 with boxxy fs solid noborder lc rgb "#9a9a9a" @T
unset multiplot
unset output
