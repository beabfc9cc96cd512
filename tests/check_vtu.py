"""check_vtu.py: fluidlab's .vtu frames and .pvd collection as VTK reads them.

usage: check_vtu.py TEST_IO SCRATCH_DIR
       check_vtu.py --run RUN_DIR

Runs `TEST_IO write-vtu SCRATCH_DIR`, which writes three frames (300
particles with NaN, +-Inf, denormals, -0 and arbitrary bit patterns; one
particle; none, under a name with XML's special characters), the
collection SCRATCH_DIR/frames.pvd rewritten after each, and what it wrote in
expected_frames.csv and expected_particles.csv. Then checks:

  - frames.pvd, parsed with xml.etree (VTK 9.1's Python modules have no
    reader for collections): a VTKFile of type Collection whose DataSets
    list the three files in order, with group "" and part 0, each timestep
    the exact double written;
  - every frame it lists, read with vtkXMLUnstructuredGridReader without a
    VTK error or warning: the point and cell counts, one VTK_VERTEX cell per
    point (cell i holds point i), the Float32 positions, velocity (the active
    vectors), density (the active scalars) and pressure bit for bit, and the
    time both as field data TimeValue and as the reader's TIME_STEPS.

With --run, a run folder of `fluidlab run --save bin,vtu`: every frame
RUN_DIR/frames.pvd lists, read with vtkXMLUnstructuredGridReader without a
VTK error or warning, has run.json's particle count, one vertex cell per
point, the TimeValue the .pvd gives it, and the positions and time of the
.bin frame of the same number, bit for bit; and where the run had a
rigid tool, tool.pvd: a .vtp surface at every frame's time, read with
vtkXMLPolyDataReader, whose points, normals and triangles are those of the
OBJ beside it.

Exits 0 when all hold, 1 when one does not, 77 (skipped) when vtk cannot be
imported.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    import vtk
except ImportError:
    print("check_vtu.py: skipped: this Python has no vtk module "
          "(on Debian or Ubuntu: apt-get install python3-vtk9)")
    sys.exit(77)

FIELDS = ("x", "y", "z", "vx", "vy", "vz", "rho", "p")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED: " + what)


def float_bits(array):
    """The raw bits of a VTK float array's values, in tuple order."""
    raw = bytes(memoryview(array))
    return list(struct.unpack("=%dI" % (len(raw) // 4), raw))


def double_bits(value):
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def read_expected(folder):
    frames = []
    with open(os.path.join(folder, "expected_frames.csv")) as f:
        next(f)
        for line in f:
            # the file name is the last column and may hold anything but a newline
            frame, n, time_bits, name = line.rstrip("\n").split(",", 3)
            frames.append({"n": int(n), "time_bits": int(time_bits, 16), "file": name,
                           "bits": {k: [] for k in FIELDS}})
    with open(os.path.join(folder, "expected_particles.csv")) as f:
        next(f)
        for line in f:
            cols = line.strip().split(",")
            frame = frames[int(cols[0])]
            for k, v in zip(FIELDS, cols[2:]):
                frame["bits"][k].append(int(v, 16))
    return frames


def check_pvd(path, frames):
    root = ET.parse(path).getroot()
    check(root.tag == "VTKFile" and root.get("type") == "Collection"
          and root.get("version") == "0.1" and root.get("byte_order") == "LittleEndian",
          "frames.pvd: a VTKFile of type Collection, version 0.1, LittleEndian")
    sets = root.findall("./Collection/DataSet")
    check(len(sets) == len(frames),
          "frames.pvd lists %d data sets, expected %d" % (len(sets), len(frames)))
    for i, (ds, frame) in enumerate(zip(sets, frames)):
        check(ds.get("file") == frame["file"],
              "frames.pvd data set %d: file %r, expected %r" % (i, ds.get("file"), frame["file"]))
        check(double_bits(float(ds.get("timestep"))) == frame["time_bits"],
              "frames.pvd data set %d: timestep %s is not the time written" % (i, ds.get("timestep")))
        check(ds.get("group") == "" and ds.get("part") == "0",
              "frames.pvd data set %d: group \"\" and part 0" % i)
    return [os.path.join(os.path.dirname(path), ds.get("file")) for ds in sets]


def check_frame(path, frame):
    name = os.path.basename(path)
    messages = vtk.vtkStringOutputWindow()
    vtk.vtkOutputWindow.SetInstance(messages)
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    check(messages.GetOutput() == "",
          "%s: VTK reported: %s" % (name, messages.GetOutput().strip()))
    out = reader.GetOutput()
    n = frame["n"]

    check(out.GetNumberOfPoints() == n,
          "%s: %d points, expected %d" % (name, out.GetNumberOfPoints(), n))
    check(out.GetNumberOfCells() == n,
          "%s: %d cells, expected %d" % (name, out.GetNumberOfCells(), n))
    if out.GetNumberOfPoints() != n or out.GetNumberOfCells() != n:
        return
    vertices = all(out.GetCellType(i) == vtk.VTK_VERTEX and out.GetCell(i).GetNumberOfPoints() == 1
                   and out.GetCell(i).GetPointId(0) == i for i in range(n))
    check(vertices, "%s: cell i is a VTK_VERTEX holding point i" % name)

    bits = frame["bits"]
    pd = out.GetPointData()
    velocity, density, pressure = (pd.GetArray(a) for a in ("velocity", "density", "pressure"))
    arrays = {"positions": (out.GetPoints().GetData() if out.GetPoints() else None, ("x", "y", "z")),
              "velocity": (velocity, ("vx", "vy", "vz")),
              "density": (density, ("rho",)),
              "pressure": (pressure, ("p",))}
    for label, (array, fields) in arrays.items():
        check(array is not None, "%s: no %s array" % (name, label))
        if array is None:
            continue
        check(array.GetDataType() == vtk.VTK_FLOAT and array.GetNumberOfComponents() == len(fields)
              and array.GetNumberOfTuples() == n,
              "%s: %s is not Float32 x %d with %d tuples" % (name, label, len(fields), n))
        if n > 0:
            want = [bits[k][i] for i in range(n) for k in fields]
            check(float_bits(array) == want, "%s: %s values differ from those written" % (name, label))
    check(pd.GetVectors() is not None and pd.GetVectors().GetName() == "velocity",
          "%s: velocity is the active vectors" % name)
    check(pd.GetScalars() is not None and pd.GetScalars().GetName() == "density",
          "%s: density is the active scalars" % name)

    time = out.GetFieldData().GetArray("TimeValue")
    check(time is not None and time.GetDataType() == vtk.VTK_DOUBLE
          and time.GetNumberOfTuples() == 1 and double_bits(time.GetValue(0)) == frame["time_bits"],
          "%s: field data TimeValue is the Float64 time written" % name)
    key = vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS()
    info = reader.GetOutputInformation(0)
    steps = info.Get(key) if info.Has(key) else None
    check(steps is not None and len(steps) == 1 and double_bits(steps[0]) == frame["time_bits"],
          "%s: the reader's TIME_STEPS %r are the time written" % (name, steps))


def read_bin(path):
    """(time, [x, y, z bits of each particle]) of a binary frame."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, n, time, record = struct.unpack_from("<8sIIdI", data, 0)
    check(magic == b"FLFRAME1" and version == 1 and record == 12 and len(data) == 32 + 12 * n,
          "%s: a version 1 frame" % path)
    return time, list(struct.unpack_from("<%dI" % (3 * n), data, 32))


def check_run(folder):
    with open(os.path.join(folder, "run.json")) as f:
        n = json.load(f)["fluid_particles"]
    root = ET.parse(os.path.join(folder, "frames.pvd")).getroot()
    sets = root.findall("./Collection/DataSet")
    check(root.get("type") == "Collection" and len(sets) >= 2, "frames.pvd: a collection of frames")
    for ds in sets:
        path = os.path.join(folder, ds.get("file"))
        name = ds.get("file")
        messages = vtk.vtkStringOutputWindow()
        vtk.vtkOutputWindow.SetInstance(messages)
        reader = vtk.vtkXMLUnstructuredGridReader()
        reader.SetFileName(path)
        reader.Update()
        out = reader.GetOutput()
        check(messages.GetOutput() == "", "%s: VTK reported: %s" % (name, messages.GetOutput().strip()))
        check(out.GetNumberOfPoints() == n and out.GetNumberOfCells() == n,
              "%s: %d points and %d cells, run.json has %d particles"
              % (name, out.GetNumberOfPoints(), out.GetNumberOfCells(), n))
        time = out.GetFieldData().GetArray("TimeValue")
        check(time is not None and double_bits(time.GetValue(0)) == double_bits(float(ds.get("timestep"))),
              "%s: TimeValue is the .pvd's timestep %s" % (name, ds.get("timestep")))
        bin_time, bin_bits = read_bin(path[:-4] + ".bin")
        check(time is not None and double_bits(time.GetValue(0)) == double_bits(bin_time),
              "%s: the time of the .bin frame" % name)
        check(out.GetPoints() is not None and float_bits(out.GetPoints().GetData()) == bin_bits,
              "%s: the positions of the .bin frame, bit for bit" % name)
        for a in ("velocity", "density", "pressure"):
            arr = out.GetPointData().GetArray(a)
            check(arr is not None and arr.GetNumberOfTuples() == n, "%s: %s for every point" % (name, a))
    tools = check_tool(folder, sets) if os.path.exists(os.path.join(folder, "tool.pvd")) else 0
    print("check_vtu.py --run %s: %d frames of %d particles, %d tool surfaces, %d failures"
          % (folder, len(sets), n, tools, len(failures)))
    return 0 if not failures else 1


def read_obj(path):
    """(vertices, normals, triangles) of an OBJ that fl_obj_write wrote."""
    v, vn, f = [], [], []
    with open(path) as fh:
        for line in fh:
            w = line.split()
            if w and w[0] == "v":
                v.append([float(x) for x in w[1:4]])
            elif w and w[0] == "vn":
                vn.append([float(x) for x in w[1:4]])
            elif w and w[0] == "f":
                f.append([int(x.split("/")[0]) - 1 for x in w[1:4]])
    return v, vn, f


def check_tool(folder, frame_sets):
    """tool.pvd: one .vtp a frame at the frames' times, each read with
    vtkXMLPolyDataReader without a VTK error or warning: the TimeValue the
    .pvd gives it, and the points, normals (the active ones) and triangles
    of the OBJ beside it (the same mesh, to the float)."""
    sets = ET.parse(os.path.join(folder, "tool.pvd")).getroot().findall("./Collection/DataSet")
    check([ds.get("timestep") for ds in sets] == [ds.get("timestep") for ds in frame_sets],
          "tool.pvd: a surface at every frame's time")
    for ds in sets:
        name = ds.get("file")
        messages = vtk.vtkStringOutputWindow()
        vtk.vtkOutputWindow.SetInstance(messages)
        reader = vtk.vtkXMLPolyDataReader()
        reader.SetFileName(os.path.join(folder, name))
        reader.Update()
        out = reader.GetOutput()
        check(messages.GetOutput() == "", "%s: VTK reported: %s" % (name, messages.GetOutput().strip()))
        time = out.GetFieldData().GetArray("TimeValue")
        check(time is not None and double_bits(time.GetValue(0)) == double_bits(float(ds.get("timestep"))),
              "%s: TimeValue is the .pvd's timestep %s" % (name, ds.get("timestep")))
        v, vn, f = read_obj(os.path.join(folder, name[:-4] + ".obj"))
        pts = out.GetPoints()
        normals = out.GetPointData().GetNormals()
        check(pts is not None and out.GetNumberOfPoints() == len(v) and out.GetNumberOfPolys() == len(f),
              "%s: the OBJ's %d points and %d triangles" % (name, len(v), len(f)))
        if pts is None or out.GetNumberOfPoints() != len(v) or normals is None:
            continue
        check(all(struct.pack("<3f", *pts.GetPoint(i)) == struct.pack("<3f", *v[i]) for i in range(len(v))),
              "%s: the OBJ's points" % name)
        check(all(struct.pack("<3f", *normals.GetTuple3(i)) == struct.pack("<3f", *vn[i]) for i in range(len(v))),
              "%s: the OBJ's normals" % name)
        polys = out.GetPolys()
        ids = vtk.vtkIdList()
        polys.InitTraversal()
        tris = []
        while polys.GetNextCell(ids):
            tris.append([ids.GetId(k) for k in range(ids.GetNumberOfIds())])
        check(tris == f, "%s: the OBJ's triangles" % name)
    return len(sets)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        return check_run(sys.argv[2])
    if len(sys.argv) != 3:
        print("usage: check_vtu.py TEST_IO SCRATCH_DIR")
        return 2
    test_io, folder = sys.argv[1], sys.argv[2]
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if subprocess.call([test_io, "write-vtu", folder]) != 0:
        print("FAILED: %s write-vtu %s" % (test_io, folder))
        return 1
    frames = read_expected(folder)
    check([f["n"] for f in frames] == [300, 1, 0], "expected_frames.csv: frames of 300, 1, 0")
    files = check_pvd(os.path.join(folder, "frames.pvd"), frames)
    for path, frame in zip(files, frames):
        check(os.path.isfile(path), "%s: listed in frames.pvd but not there" % path)
        if os.path.isfile(path):
            check_frame(path, frame)
    nan = sum(1 for f in frames for k in FIELDS for b in f["bits"][k]
              if math.isnan(struct.unpack("<f", struct.pack("<I", b))[0]))
    print("check_vtu.py: %d frames, %d NaN values among them, %d failures"
          % (len(frames), nan, len(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
