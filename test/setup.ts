// Core sources imported directly by tests need the AssemblyScript portable shim first.
import "assemblyscript/std/portable/index.js";
