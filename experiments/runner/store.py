"""The output directory: cells/<id>.json (written by ugsearch), logs/, rejected/, and index.json.

A cell is finished when its results file exists and parses; ugsearch writes it atomically, so a
cell cut short by an interruption leaves no results file and simply runs again.
"""
import json
import os
import time


def write_json_atomic(path, obj):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def read_results(path):
    """The results document at path, or None when it is missing or not a results file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("run"), dict) else None


class Store:
    def __init__(self, out_dir):
        self.out = out_dir
        self.index_path = os.path.join(out_dir, "index.json")
        self.entries = {e["id"]: e for e in self._previous_index() if isinstance(e, dict) and "id" in e}

    def create(self):
        for sub in ("cells", "logs", "rejected", "configs"):
            os.makedirs(os.path.join(self.out, sub), exist_ok=True)

    def results_path(self, cell):
        return os.path.join(self.out, "cells", cell.id + ".json")

    def log_path(self, cell):
        return os.path.join(self.out, "logs", cell.id + ".log")

    def rejected_path(self, cell):
        return os.path.join(self.out, "rejected", cell.id + ".json")

    def config_path(self, cell):
        """Where the cell's config keys go for --config; None for a cell without them."""
        return os.path.join(self.out, "configs", cell.id + ".json") if cell.config else None

    def write_config(self, cell):
        """Writes the cell's config file (if it has config keys) and returns its path, or None."""
        path = self.config_path(cell)
        if path:
            write_json_atomic(path, json.loads(cell.config))
        return path

    def scan(self, cells):
        """Reads what is on disk once: sets every cell's index entry and returns the finished cells."""
        finished = []
        for cell in cells:
            doc = read_results(self.results_path(cell))
            old = self.entries.get(cell.id)
            done = old is not None and old.get("status") in ("ok", "partial")
            if doc is not None and not done:  # finished, but its index entry was lost
                old = {"status": "partial" if doc["run"].get("partial") else "ok"}
            elif doc is None and done:  # its results file has gone: it runs again
                old = None
            self.entries[cell.id] = self._entry(cell, old or {"status": "pending"})
            if doc is not None:
                finished.append(cell)
        return finished

    def record(self, cell, status, exit_code, wall_s, error, command):
        self.entries[cell.id] = self._entry(cell, {
            "status": status, "exit_code": exit_code, "wall_s": wall_s, "error": error,
            "command": command, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S")})

    def save(self, matrix, binary, cells):
        write_json_atomic(self.index_path, {
            "matrix": matrix.name, "matrix_file": matrix.path, "description": matrix.description,
            "binary": binary, "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "cells": [self.entries[c.id] for c in cells]})

    @staticmethod
    def _entry(cell, outcome):
        blank = {"status": "pending", "exit_code": None, "wall_s": None, "error": None}
        return {"id": cell.id, **cell.params(), "results": os.path.join("cells", cell.id + ".json"),
                **blank, **{k: v for k, v in outcome.items() if k not in ("id", "results")}}

    def _previous_index(self):
        try:
            with open(self.index_path, encoding="utf-8") as f:
                return json.load(f).get("cells", [])
        except (OSError, ValueError, AttributeError):
            return []
