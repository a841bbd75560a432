"""Widgets the window is built from: fields made from the option declarations, live plots, a collapsible section,
and the one style module every colour comes from."""
