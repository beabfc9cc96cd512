# particles.gp: one picture of a run's fluid (`fluidlab run --save png`):
# the particles as discs of their own size, coloured by a field, with a
# colour bar, axes in metres, equal aspect and the domain's outline.
#
# Usage (gnuplot 5.4, pngcairo):
#   gnuplot -e "data='frames/0003.csv'" -e "out='frames/0003.png'" \
#           -e "title='...'" -e "label='speed (m/s)'" \
#           -e "box='0 1.2 0 0.5'" -e "cb='0 3.13'" -e "radius='0.005'" \
#           -e "palette='seq'" plots/particles.gp
# Variables:
#   data     CSV with a header line: x, y (m), z (m), the field's value
#   out      the PNG to write
#   title    the picture's title
#   label    the colour bar's label (field and unit)
#   box      "XLO XHI YLO YHI": the domain's outline, m
#   cb       "LO HI": the colour bar's range
#   radius   a particle's radius, m
#   palette  seq (low to high: dark blue to yellow) or div (signed: blue,
#            white at 0, red)
#   size     "W H" in pixels (default "900 600")
#   tool     CSV with a header line: x, y, z (m) of the rigid tool's
#            particles in the picture, drawn in grey (optional)
# A data file without rows draws the empty domain.

if (!exists("size")) size = "900 600"
set terminal pngcairo size int(word(size, 1)), int(word(size, 2)) font ",10"
set output out
set termoption noenhanced
set datafile separator comma
xlo = real(word(box, 1)); xhi = real(word(box, 2)); ylo = real(word(box, 3)); yhi = real(word(box, 4))
mx = 0.03 * (xhi - xlo); my = 0.03 * (yhi - ylo)
set xrange [xlo - mx : xhi + mx]
set yrange [ylo - my : yhi + my]
set size ratio -1
set xlabel "x (m)"
set ylabel "y (m)"
set title title
set cblabel label
set cbrange [real(word(cb, 1)) : real(word(cb, 2))]
if (palette eq "div") {
    set palette defined (0 "#2166ac", 0.5 "#f7f7f7", 1 "#b2182b")
} else {
    set palette defined (0 "#30123b", 0.25 "#4686fb", 0.5 "#1ae4b6", 0.75 "#faba39", 1 "#7a0403")
}
set object 1 rect from xlo, ylo to xhi, yhi fillstyle empty border lc rgb "#404040" lw 1.5 behind
set style fill solid noborder
unset key
# a header line alone (no particle in the slice): the empty domain
rows = int(system(sprintf("wc -l < '%s'", data))) - 1
trows = exists("tool") ? int(system(sprintf("wc -l < '%s'", tool))) - 1 : 0
grey = "#8c8478"
# (gnuplot 5.4 has no "else if")
if (rows > 0 && trows > 0) {
    plot tool using 1:2:(real(radius)) skip 1 with circles fc rgb grey, data using 1:2:(real(radius)):4 skip 1 with circles lc palette
}
if (rows > 0 && trows <= 0) {
    plot data using 1:2:(real(radius)):4 skip 1 with circles lc palette
}
if (rows <= 0 && trows > 0) {
    plot tool using 1:2:(real(radius)) skip 1 with circles fc rgb grey
}
if (rows <= 0 && trows <= 0) {
    plot NaN notitle
}
unset output
