//! JSON Schema front end for gcd. Compiling schemas to grammars lands here.
