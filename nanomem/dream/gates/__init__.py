"""Pure checks that every Dream edit passes."""
