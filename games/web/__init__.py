"""Server-rendered play pages (the basic flow works without JavaScript)."""
