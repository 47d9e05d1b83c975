"""Where an ONNX graph's external data may be: beside it, in its own folder.

ONNX keeps tensors larger than 2 GiB (or any tensor the writer chose) in files the graph
names by a ``location`` relative to the graph's folder (ONNX docs, "External Data": "the
external data file must be in the same directory as the model or a child of it"). ONNX
Runtime refuses a location that is absolute or that resolves outside the model's folder,
through ``..`` or a symbolic link (onnxruntime, ``ValidateExternalDataPath``,
microsoft/onnxruntime#26776: "Absolute path not allowed", "External data path escapes model
directory"); Triton loads the graph from the version folder, and a copy of the model folder
(a deployment bundle, an upload to a server) leaves such a file behind.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from builders.triton.rules import Problem

#: What to do with external data outside the model folder.
FIX = (
    "keep the weights beside the graph: onnx.save_model(model, 'model.onnx', save_as_external_data=True, "
    "location='model.onnx.data'), in the version folder"
)


def location_problem(folder: Path, location: str) -> str | None:
    """Why ONNX Runtime refuses the external data ``location`` of a graph in ``folder``, or ``None``.

    Args:
        folder: The graph's folder (the version folder, ``<model>/1``).
        location: The ``location`` the graph records.
    """
    if PurePosixPath(location).is_absolute() or PureWindowsPath(location).is_absolute() or PureWindowsPath(location).drive:
        return f"is an absolute path ({location!r}): ONNX Runtime refuses absolute external-data locations"
    if os.path.normpath(location).split(os.sep)[0] == "..":
        return f"{location!r} points outside {folder.name}/ (through '..'): ONNX Runtime refuses a location that escapes the model folder"
    target = folder / location
    if target.exists() and not target.resolve().is_relative_to(folder.resolve()):
        return (
            f"{location!r} is a link to {target.resolve()}, outside {folder.name}/: ONNX Runtime refuses a location "
            "that resolves outside the model folder"
        )
    return None


def external_data_problems(artifact: Path, locations: tuple[str, ...]) -> list[Problem]:
    """Every external data file an ONNX graph names must be beside it, inside its folder
    (Triton loads the graph with its external data from the version folder).

    Args:
        artifact: The graph file.
        locations: The external data locations it records
            (:attr:`builders.model.artifact_io.ArtifactIO.external_data`).
    """
    out = []
    for name in locations:
        escape = location_problem(artifact.parent, name)
        if escape:
            out.append(Problem(str(artifact), "external data", f"{artifact.name} keeps weights in a file that {escape}", FIX))
        elif not (artifact.parent / name).is_file():
            out.append(
                Problem(
                    str(artifact),
                    "external data",
                    f"{artifact.name} keeps weights in {name!r}, which is missing from {artifact.parent.name}/",
                    f"copy {name} from the build folder into {artifact.parent}",
                )
            )
    return out
