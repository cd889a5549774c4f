"""Wave models (regular, irregular), spectra and kinematics (run time)."""
